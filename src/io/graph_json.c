/* State-machine descriptions from JSON (graph_json.h) into the structures
 * the runtime reads (anim/graph_internal.h). The format is documented in
 * docs/state-machine.md. */
#include "anim/graph_internal.h"
#include "io/json_internal.h"
#include "skelanim/io/graph_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct parse_ctx {
    sk_graph *g;
    sk_clip *const *clips;
    uint32_t nclips;
    sk_error *err;
    const char *prefix; /* file name or "" */
} parse_ctx;

#define PERR(c, code, path, ...) perr(c, code, path, __VA_ARGS__)

static sk_result perr(parse_ctx *c, sk_result code, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* JSON paths are truncated silently when absurdly deep (the message stays readable). */
static void pathf(char *dst, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pathf(char *dst, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static sk_result perr(parse_ctx *c, sk_result code, const char *path, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sk_error_set(c->err, code, "%s%s%s: %s", c->prefix, c->prefix[0] ? ": " : "", path[0] ? path : "/", msg);
}

static void *arena_array(parse_ctx *c, size_t n, size_t size) {
    size_t bytes;
    if (!sk_size_mul(n ? n : 1, size, &bytes)) return NULL;
    return sk_arena_alloc(&c->g->arena, bytes);
}

static const sk_clip *find_clip(parse_ctx *c, const char *name, uint32_t *index) {
    for (uint32_t i = 0; i < c->nclips; i++)
        if (c->clips[i] && !strcmp(sk_clip_name(c->clips[i]), name)) {
            *index = i;
            return c->clips[i];
        }
    return NULL;
}

static sk_result oom(parse_ctx *c) { return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory"); }

static sk_result clip_ref(parse_ctx *c, const sk_jv *j, const char *path, const sk_clip **out, uint32_t *index) {
    const char *name = sk_jv_string(j);
    if (!name) return PERR(c, SK_ERR_INVALID_DATA, path, "expected a clip name (string)");
    *out = find_clip(c, name, index);
    if (*out && c->g->rm_joint >= 0 && !c->g->rm[*index]) {
        sk_error e2;
        if (sk_root_motion_create(*out, c->g->skel, (uint32_t)c->g->rm_joint, &c->g->alloc, &c->g->rm[*index], &e2) != SK_OK)
            return PERR(c, e2.code, path, "root motion: %s", e2.message);
    }
    if (!*out) {
        char names[200] = "";
        for (uint32_t i = 0; i < c->nclips && strlen(names) < 150; i++) {
            if (i) strcat(names, ", ");
            strncat(names, sk_clip_name(c->clips[i]), 40);
        }
        return PERR(c, SK_ERR_INVALID_DATA, path, "no clip named '%s' (clips: %s)", name, names);
    }
    return SK_OK;
}

/* An optional finite number: absent or null gives def (and false); anything
 * but a finite number sets *bad. */
static bool get_number(const sk_jv *o, const char *key, double def, double *out, bool *bad) {
    const sk_jv *v = sk_jv_get(o, key);
    if (!v || sk_jv_is_null(v)) {
        *out = def;
        return false;
    }
    if (!sk_jv_finite(v, out)) {
        *bad = true;
        return false;
    }
    return true;
}

/* Whether v is the string s. */
static bool is_string(const sk_jv *v, const char *s) {
    const char *t = sk_jv_string(v);
    return t && !strcmp(t, s);
}

static sk_result parse_machine(parse_ctx *c, const sk_jv *jm, const char *path, g_machine **out, int depth);

static sk_result parse_bs_params(parse_ctx *c, const sk_jv *jb, const char *path, g_state *s) {
    char p[300];
    const sk_jv *params = sk_jv_get(jb, "parameters");
    pathf(p, sizeof p, "%s/parameters", path);
    uint32_t np = sk_jv_array_size(params);
    if (np < 1 || np > 2) return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array of 1 or 2 parameter names");
    s->bs_dim = np;
    uint32_t i = 0;
    for (const sk_jv *pn = sk_jv_child(params); pn; pn = sk_jv_next(pn), i++) {
        pathf(p, sizeof p, "%s/parameters/%u", path, i);
        const char *name = sk_jv_string(pn);
        if (!name) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a parameter name");
        int32_t k = find_param(c->g, name);
        if (k < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no parameter named '%s'", name);
        if (c->g->ptypes[k] != SK_PARAM_FLOAT) return PERR(c, SK_ERR_INVALID_DATA, p, "parameter '%s' is not a float", name);
        s->bs_param[i] = (uint32_t)k;
    }
    const sk_jv *mode = sk_jv_get(jb, "mode");
    s->bs_mode = SK_BLENDSPACE_CARTESIAN;
    if (mode) {
        pathf(p, sizeof p, "%s/mode", path);
        if (is_string(mode, "cartesian")) s->bs_mode = SK_BLENDSPACE_CARTESIAN;
        else if (is_string(mode, "polar")) s->bs_mode = SK_BLENDSPACE_POLAR;
        else return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"cartesian\" or \"polar\"");
        if (s->bs_mode == SK_BLENDSPACE_POLAR && np != 2)
            return PERR(c, SK_ERR_INVALID_DATA, p, "polar blend spaces need 2 parameters");
    }
    return SK_OK;
}

/* Sample i of a blend space: its clip and its point. */
static sk_result parse_bs_sample(parse_ctx *c, const sk_jv *e, const char *path, uint32_t i, g_state *s) {
    char p[300];
    const uint32_t np = s->bs_dim;
    pathf(p, sizeof p, "%s/samples/%u/clip", path, i);
    sk_result r = clip_ref(c, sk_jv_get(e, "clip"), p, &s->bs_clips[i], &s->bs_clip_index[i]);
    if (r != SK_OK) return r;
    const sk_jv *at = sk_jv_get(e, "at");
    pathf(p, sizeof p, "%s/samples/%u/at", path, i);
    if (sk_jv_array_size(at) != np)
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array of %u number(s)", np);
    uint32_t k = 0;
    for (const sk_jv *v = sk_jv_child(at); v; v = sk_jv_next(v), k++) {
        double d;
        if (!sk_jv_finite(v, &d)) return PERR(c, SK_ERR_INVALID_DATA, p, "element %u is not a finite number", k);
        s->bs_points[i * np + k] = (float)d;
    }
    return SK_OK;
}

static sk_result parse_blendspace(parse_ctx *c, const sk_jv *jb, const char *path, g_state *s) {
    char p[300];
    if (!sk_jv_is(jb, SK_JV_OBJECT)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    sk_result r = parse_bs_params(c, jb, path, s);
    if (r != SK_OK) return r;
    const sk_jv *smp = sk_jv_get(jb, "samples");
    pathf(p, sizeof p, "%s/samples", path);
    uint32_t n = sk_jv_array_size(smp);
    if (n < 1) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty array of samples");
    s->bs_n = n;
    s->bs_points = arena_array(c, (size_t)n * s->bs_dim, sizeof(float));
    s->bs_clips = arena_array(c, n, sizeof(sk_clip *));
    s->bs_clip_index = arena_array(c, n, sizeof(uint32_t));
    if (!s->bs_points || !s->bs_clips || !s->bs_clip_index) return oom(c);
    uint32_t i = 0;
    for (const sk_jv *e = sk_jv_child(smp); e; e = sk_jv_next(e), i++) {
        r = parse_bs_sample(c, e, path, i, s);
        if (r != SK_OK) return r;
    }
    /* validate the layout once (duplicate points) */
    float *w = arena_array(c, n, sizeof(float));
    if (!w) return oom(c);
    sk_error e2;
    if (sk_blendspace_weights(s->bs_points, s->bs_n, s->bs_dim, s->bs_points, s->bs_mode, w, &e2) != SK_OK)
        return PERR(c, SK_ERR_INVALID_DATA, p, "%s", e2.message);
    return SK_OK;
}

/* An "external" state: a pose source's name and its seconds per cycle. */
static sk_result parse_external(parse_ctx *c, const sk_jv *js, const sk_jv *ext, const char *path, g_state *s) {
    char p[300];
    s->kind = KIND_EXTERNAL;
    pathf(p, sizeof p, "%s/external", path);
    const char *source = sk_jv_string(ext);
    if (!source || !source[0]) return PERR(c, SK_ERR_INVALID_DATA, p, "expected the non-empty name of a pose source");
    s->source = sk_arena_strdup(&c->g->arena, source);
    if (!s->source) return oom(c);
    bool bad = false;
    double cyc;
    get_number(js, "cycle", 1.0, &cyc, &bad);
    pathf(p, sizeof p, "%s/cycle", path);
    if (bad || !(cyc >= 1e-3 && cyc <= 3600.0))
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected seconds per cycle in [0.001, 3600]");
    s->cycle = (float)cyc;
    return SK_OK;
}

/* A state's name, speed and loop mode. */
static sk_result parse_state_common(parse_ctx *c, const sk_jv *js, const char *path, g_state *s) {
    char p[300];
    const char *name = sk_jv_string(sk_jv_get(js, "name"));
    pathf(p, sizeof p, "%s/name", path);
    if (!name || !name[0] || !strcmp(name, "*"))
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty state name other than \"*\"");
    s->name = sk_arena_strdup(&c->g->arena, name);
    if (!s->name) return oom(c);
    bool bad = false;
    double sp;
    get_number(js, "speed", 1.0, &sp, &bad);
    pathf(p, sizeof p, "%s/speed", path);
    if (bad) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a finite number");
    if (fabs(sp) > SK_GRAPH_MAX_SPEED)
        return PERR(c, SK_ERR_INVALID_DATA, p, "%g is outside [-%g, %g] (SK_GRAPH_MAX_SPEED)", sp,
                    (double)SK_GRAPH_MAX_SPEED, (double)SK_GRAPH_MAX_SPEED);
    s->speed = (float)sp;
    s->loop = SK_LOOP_REPEAT;
    const sk_jv *loop = sk_jv_get(js, "loop");
    if (loop) {
        pathf(p, sizeof p, "%s/loop", path);
        if (is_string(loop, "repeat")) s->loop = SK_LOOP_REPEAT;
        else if (is_string(loop, "clamp")) s->loop = SK_LOOP_CLAMP;
        else if (is_string(loop, "ping_pong")) s->loop = SK_LOOP_PING_PONG;
        else return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"repeat\", \"clamp\" or \"ping_pong\"");
    }
    return SK_OK;
}

static sk_result parse_state(parse_ctx *c, const sk_jv *js, const char *path, g_state *s, int depth) {
    char p[300];
    if (!sk_jv_is(js, SK_JV_OBJECT)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    sk_result r = parse_state_common(c, js, path, s);
    if (r != SK_OK) return r;
    const sk_jv *clip = sk_jv_get(js, "clip");
    const sk_jv *bs = sk_jv_get(js, "blendspace");
    const sk_jv *m = sk_jv_get(js, "machine");
    const sk_jv *ext = sk_jv_get(js, "external");
    int kinds = (clip != NULL) + (bs != NULL) + (m != NULL) + (ext != NULL);
    if (kinds != 1)
        return PERR(c, SK_ERR_INVALID_DATA, path,
                    "state '%s' needs exactly one of \"clip\", \"blendspace\", \"machine\", \"external\"", s->name);
    if (ext) return parse_external(c, js, ext, path, s);
    if (clip) {
        s->kind = KIND_CLIP;
        pathf(p, sizeof p, "%s/clip", path);
        return clip_ref(c, clip, p, &s->clip, &s->clip_index);
    }
    if (bs) {
        s->kind = KIND_BLENDSPACE;
        pathf(p, sizeof p, "%s/blendspace", path);
        return parse_blendspace(c, bs, p, s);
    }
    s->kind = KIND_MACHINE;
    pathf(p, sizeof p, "%s/machine", path);
    return parse_machine(c, m, p, &s->sub, depth + 1);
}

static int32_t state_index(const g_machine *m, const char *name) {
    for (uint32_t i = 0; i < m->nstates; i++)
        if (!strcmp(m->states[i].name, name)) return (int32_t)i;
    return -1;
}

/* A condition on a bool parameter: == or != a value (default true). */
static sk_result parse_bool_cond(parse_ctx *c, const sk_jv *op, const sk_jv *val, const char *path, g_cond *k) {
    char p[340];
    pathf(p, sizeof p, "%s/value", path);
    if (val && !sk_jv_is_bool(val)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected true or false");
    k->value = (!val || sk_jv_is_true(val)) ? 1.0f : 0.0f;
    k->op = OP_EQ;
    if (op) {
        pathf(p, sizeof p, "%s/op", path);
        if (is_string(op, "!=")) k->op = OP_NE;
        else if (!is_string(op, "==")) return PERR(c, SK_ERR_INVALID_DATA, p, "bool parameters take \"==\" or \"!=\"");
    }
    return SK_OK;
}

static sk_result parse_cond(parse_ctx *c, const sk_jv *jc, const char *path, g_cond *k) {
    char p[340];
    if (!sk_jv_is(jc, SK_JV_OBJECT)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    const char *pn = sk_jv_string(sk_jv_get(jc, "param"));
    pathf(p, sizeof p, "%s/param", path);
    if (!pn) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a parameter name");
    int32_t pi = find_param(c->g, pn);
    if (pi < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no parameter named '%s'", pn);
    k->param = (uint32_t)pi;
    const sk_jv *op = sk_jv_get(jc, "op");
    const sk_jv *val = sk_jv_get(jc, "value");
    sk_param_type t = c->g->ptypes[pi];
    if (t == SK_PARAM_TRIGGER) {
        if (op || val) return PERR(c, SK_ERR_INVALID_DATA, path, "trigger '%s' takes no \"op\" or \"value\"", pn);
        k->op = OP_TRIGGER;
        return SK_OK;
    }
    if (t == SK_PARAM_BOOL) return parse_bool_cond(c, op, val, path, k);
    static const char *ops[] = {">", "<", ">=", "<=", "==", "!="};
    pathf(p, sizeof p, "%s/op", path);
    const char *os = sk_jv_string(op);
    if (!os) return PERR(c, SK_ERR_INVALID_DATA, p, "float parameter '%s' needs an op (> < >= <= == !=)", pn);
    int o = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(os, ops[i])) o = i;
    if (o < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "unknown op '%s' (> < >= <= == !=)", os);
    k->op = (uint8_t)o;
    pathf(p, sizeof p, "%s/value", path);
    double v;
    if (!sk_jv_finite(val, &v)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a finite number");
    k->value = (float)v;
    return SK_OK;
}

/* A transition's ends: "from" (a state or "*") and "to". */
static sk_result parse_ends(parse_ctx *c, const g_machine *m, const sk_jv *jt, const char *tp, g_trans *t) {
    char p[300];
    const char *from = sk_jv_string(sk_jv_get(jt, "from")), *to = sk_jv_string(sk_jv_get(jt, "to"));
    pathf(p, sizeof p, "%s/from", tp);
    if (!from) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a state name or \"*\"");
    t->from = !strcmp(from, "*") ? -1 : state_index(m, from);
    if (t->from == -1 && strcmp(from, "*"))
        return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", from);
    pathf(p, sizeof p, "%s/to", tp);
    int32_t ti = to ? state_index(m, to) : -1;
    if (ti < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", to ? to : "?");
    t->to = (uint32_t)ti;
    return SK_OK;
}

/* A transition's timing: duration, exit_time, curve and sync. */
static sk_result parse_timing(parse_ctx *c, const sk_jv *jt, const char *tp, g_trans *t) {
    char p[300];
    bool bad = false;
    double v;
    get_number(jt, "duration", 0.2, &v, &bad);
    if (bad || v < 0.0) {
        pathf(p, sizeof p, "%s/duration", tp);
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected a number >= 0 (seconds)");
    }
    t->duration = (float)v;
    t->exit_time = -1.0f;
    if (get_number(jt, "exit_time", -1.0, &v, &bad)) t->exit_time = (float)v;
    const sk_jv *et = sk_jv_get(jt, "exit_time");
    if (bad || (t->exit_time < 0.0f && et && !sk_jv_is_null(et))) {
        pathf(p, sizeof p, "%s/exit_time", tp);
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected a number >= 0 (normalised time) or null");
    }
    const sk_jv *curve = sk_jv_get(jt, "curve");
    t->curve = SK_FADE_LINEAR;
    if (curve) {
        pathf(p, sizeof p, "%s/curve", tp);
        if (is_string(curve, "smoothstep")) t->curve = SK_FADE_SMOOTHSTEP;
        else if (!is_string(curve, "linear"))
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"linear\" or \"smoothstep\"");
    }
    const sk_jv *sync = sk_jv_get(jt, "sync");
    if (sync && !sk_jv_is_bool(sync)) {
        pathf(p, sizeof p, "%s/sync", tp);
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected true or false");
    }
    t->sync = sk_jv_is_true(sync);
    return SK_OK;
}

static sk_result parse_transition(parse_ctx *c, const g_machine *m, const sk_jv *jt, const char *tp, g_trans *t) {
    char p[300];
    if (!sk_jv_is(jt, SK_JV_OBJECT)) return PERR(c, SK_ERR_INVALID_DATA, tp, "expected an object");
    sk_result r = parse_ends(c, m, jt, tp, t);
    if (r == SK_OK) r = parse_timing(c, jt, tp, t);
    if (r != SK_OK) return r;
    const sk_jv *conds = sk_jv_get(jt, "conditions");
    if (conds) {
        pathf(p, sizeof p, "%s/conditions", tp);
        if (!sk_jv_is(conds, SK_JV_ARRAY)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array");
        t->ncond = sk_jv_array_size(conds);
        t->conds = arena_array(c, t->ncond, sizeof(g_cond));
        if (!t->conds) return oom(c);
        uint32_t k = 0;
        for (const sk_jv *jc = sk_jv_child(conds); jc; jc = sk_jv_next(jc), k++) {
            pathf(p, sizeof p, "%s/conditions/%u", tp, k);
            r = parse_cond(c, jc, p, &t->conds[k]);
            if (r != SK_OK) return r;
        }
    }
    if (!t->ncond && t->exit_time < 0.0f)
        return PERR(c, SK_ERR_INVALID_DATA, tp, "a transition needs conditions or an exit_time (it would fire at once)");
    return SK_OK;
}

static sk_result parse_states(parse_ctx *c, const sk_jv *jm, const char *path, g_machine *m, int depth) {
    char p[300];
    const sk_jv *states = sk_jv_get(jm, "states");
    pathf(p, sizeof p, "%s/states", path);
    uint32_t ns = sk_jv_array_size(states);
    if (ns < 1) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty array of states");
    m->nstates = ns;
    m->states = arena_array(c, ns, sizeof(g_state));
    if (!m->states) return oom(c);
    uint32_t i = 0;
    for (const sk_jv *js = sk_jv_child(states); js; js = sk_jv_next(js), i++) {
        pathf(p, sizeof p, "%s/states/%u", path, i);
        sk_result r = parse_state(c, js, p, &m->states[i], depth);
        if (r != SK_OK) return r;
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(m->states[k].name, m->states[i].name)) {
                pathf(p, sizeof p, "%s/states/%u/name", path, i);
                return PERR(c, SK_ERR_INVALID_DATA, p, "duplicate state name '%s' (also states/%u)", m->states[i].name, k);
            }
    }
    return SK_OK;
}

static sk_result parse_machine(parse_ctx *c, const sk_jv *jm, const char *path, g_machine **out, int depth) {
    char p[300];
    if (depth > 16) return PERR(c, SK_ERR_LIMIT, path, "machines nested more than 16 deep");
    if (!sk_jv_is(jm, SK_JV_OBJECT)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    g_machine *m = arena_array(c, 1, sizeof *m);
    if (!m) return oom(c);
    *out = m;
    sk_result r = parse_states(c, jm, path, m, depth);
    if (r != SK_OK) return r;
    const sk_jv *init = sk_jv_get(jm, "initial");
    m->initial = 0;
    if (init) {
        pathf(p, sizeof p, "%s/initial", path);
        const char *name = sk_jv_string(init);
        int32_t k = name ? state_index(m, name) : -1;
        if (k < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", name ? name : "?");
        m->initial = (uint32_t)k;
    }
    const sk_jv *trans = sk_jv_get(jm, "transitions");
    if (!trans) return SK_OK;
    pathf(p, sizeof p, "%s/transitions", path);
    if (!sk_jv_is(trans, SK_JV_ARRAY)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array");
    m->ntrans = sk_jv_array_size(trans);
    m->trans = arena_array(c, m->ntrans, sizeof(g_trans));
    if (!m->trans) return oom(c);
    uint32_t i = 0;
    for (const sk_jv *jt = sk_jv_child(trans); jt; jt = sk_jv_next(jt), i++) {
        char tp[300];
        pathf(tp, sizeof tp, "%s/transitions/%u", path, i);
        r = parse_transition(c, m, jt, tp, &m->trans[i]);
        if (r != SK_OK) return r;
    }
    return SK_OK;
}

/* Parameter i of the graph: a new name, its type and default. */
static sk_result parse_param(parse_ctx *c, const sk_jv *jp, uint32_t i) {
    sk_graph *g = c->g;
    char p[96];
    const char *name = sk_jv_string(sk_jv_get(jp, "name"));
    pathf(p, sizeof p, "/parameters/%u/name", i);
    if (!name || !name[0]) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty name");
    const uint32_t n = g->nparams;
    g->nparams = i; /* duplicates: search the ones before */
    int32_t dup = find_param(g, name);
    g->nparams = n;
    if (dup >= 0) return PERR(c, SK_ERR_INVALID_DATA, p, "duplicate parameter '%s'", name);
    g->pnames[i] = sk_arena_strdup(&g->arena, name);
    if (!g->pnames[i]) return oom(c);
    pathf(p, sizeof p, "/parameters/%u/type", i);
    const sk_jv *type = sk_jv_get(jp, "type");
    if (is_string(type, "float")) g->ptypes[i] = SK_PARAM_FLOAT;
    else if (is_string(type, "bool")) g->ptypes[i] = SK_PARAM_BOOL;
    else if (is_string(type, "trigger")) g->ptypes[i] = SK_PARAM_TRIGGER;
    else return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"float\", \"bool\" or \"trigger\"");
    const sk_jv *def = sk_jv_get(jp, "default");
    pathf(p, sizeof p, "/parameters/%u/default", i);
    if (!def) return SK_OK;
    if (g->ptypes[i] == SK_PARAM_TRIGGER) return PERR(c, SK_ERR_INVALID_DATA, p, "triggers have no default");
    if (g->ptypes[i] == SK_PARAM_BOOL) {
        if (!sk_jv_is_bool(def)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected true or false");
        g->pdefault[i] = sk_jv_is_true(def) ? 1.0f : 0.0f;
        return SK_OK;
    }
    double d;
    if (!sk_jv_finite(def, &d)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a finite number");
    g->pdefault[i] = (float)d;
    return SK_OK;
}

static sk_result parse_params(parse_ctx *c, const sk_jv *params) {
    sk_graph *g = c->g;
    if (params && !sk_jv_is(params, SK_JV_ARRAY)) return PERR(c, SK_ERR_INVALID_DATA, "/parameters", "expected an array");
    g->nparams = sk_jv_array_size(params);
    g->pnames = arena_array(c, g->nparams, sizeof(char *));
    g->ptypes = arena_array(c, g->nparams, sizeof(sk_param_type));
    g->pdefault = arena_array(c, g->nparams, sizeof(float));
    if (!g->pnames || !g->ptypes || !g->pdefault) return oom(c);
    uint32_t i = 0;
    for (const sk_jv *jp = sk_jv_child(params); jp; jp = sk_jv_next(jp), i++) {
        sk_result r = parse_param(c, jp, i);
        if (r != SK_OK) return r;
    }
    return SK_OK;
}

static sk_result parse_root_motion(parse_ctx *c, const sk_jv *rmj) {
    sk_graph *g = c->g;
    const char *joint = sk_jv_string(sk_jv_get(rmj, "joint"));
    if (!joint) return PERR(c, SK_ERR_INVALID_DATA, "/root_motion/joint", "expected a joint name");
    g->rm_joint = sk_skeleton_find(g->skel, joint);
    if (g->rm_joint < 0)
        return PERR(c, SK_ERR_INVALID_DATA, "/root_motion/joint", "no joint named '%s' in the skeleton", joint);
    g->nclips = c->nclips;
    g->rm = arena_array(c, c->nclips, sizeof(sk_root_motion *));
    return g->rm ? SK_OK : oom(c);
}

static sk_result parse_root(parse_ctx *c, const sk_jv *root) {
    if (!sk_jv_is(root, SK_JV_OBJECT))
        return PERR(c, SK_ERR_INVALID_DATA, "", "expected an object with \"parameters\" and \"machine\"");
    sk_result r = parse_params(c, sk_jv_get(root, "parameters"));
    if (r != SK_OK) return r;
    const sk_jv *rmj = sk_jv_get(root, "root_motion");
    if (rmj && (r = parse_root_motion(c, rmj)) != SK_OK) return r;
    const sk_jv *m = sk_jv_get(root, "machine");
    if (!m) return PERR(c, SK_ERR_INVALID_DATA, "/machine", "missing (the top state machine)");
    return parse_machine(c, m, "/machine", &c->g->root, 0);
}

static sk_result load_impl(const char *json, size_t len, const sk_skeleton *skel, sk_clip *const *clips,
                           uint32_t clip_count, const sk_allocator *alloc, sk_graph **out, sk_error *err,
                           const char *prefix) {
    if (!out || !json || !skel || (clip_count && !clips))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_graph_load_json: NULL argument");
    *out = NULL;
    sk_arena arena;
    sk_arena_init(&arena, alloc);
    sk_graph *g = sk_arena_alloc(&arena, sizeof *g);
    if (!g) {
        sk_arena_release(&arena);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    g->arena = arena;
    g->skel = skel;
    g->rm_joint = -1;
    g->alloc = *sk_allocator_or_default(alloc);
    parse_ctx c = {g, clips, clip_count, err, prefix ? prefix : ""};
    /* The document (from alloc) lives until this function returns. */
    sk_json_doc doc;
    sk_result r = sk_json_load(json, len, alloc, c.prefix, &doc, err);
    if (r == SK_OK) r = parse_root(&c, doc.root);
    sk_json_doc_free(&doc);
    if (r != SK_OK) {
        sk_graph_destroy(g);
        return r;
    }
    *out = g;
    return SK_OK;
}

sk_result sk_graph_load_json(const char *json, size_t len, const sk_skeleton *skel, sk_clip *const *clips,
                             uint32_t clip_count, const sk_allocator *alloc, sk_graph **out, sk_error *err) {
    return load_impl(json, len, skel, clips, clip_count, alloc, out, err, "");
}

sk_result sk_graph_load_file(const char *path, const sk_skeleton *skel, sk_clip *const *clips, uint32_t clip_count,
                             const sk_allocator *alloc, const sk_file_io *io, sk_graph **out, sk_error *err) {
    if (!path || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_graph_load_file: NULL argument");
    *out = NULL;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    void *buf = NULL;
    size_t n = 0;
    sk_result r = sk_file_read(io, path, (uint64_t)64 << 20, a, &buf, &n, err); /* the message names the path */
    if (r != SK_OK) return r;
    r = load_impl(buf, n, skel, clips, clip_count, alloc, out, err, path);
    sk_file_release(io, a, buf, n);
    return r;
}
