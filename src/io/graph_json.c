/* State-machine descriptions from JSON (graph_json.h) into the structures
 * the runtime reads (anim/graph_internal.h). The format is documented in
 * docs/state-machine.md. */
#include "anim/graph_internal.h"
#include "io/json_internal.h"
#include "skelanim/io/graph_json.h"

#include <cjson/cJSON.h>
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

static sk_result clip_ref(parse_ctx *c, const cJSON *j, const char *path, const sk_clip **out, uint32_t *index) {
    if (!cJSON_IsString(j)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected a clip name (string)");
    *out = find_clip(c, j->valuestring, index);
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
        return PERR(c, SK_ERR_INVALID_DATA, path, "no clip named '%s' (clips: %s)", j->valuestring, names);
    }
    return SK_OK;
}


static bool get_number(const cJSON *o, const char *key, double def, double *out, bool *bad) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) {
        *out = def;
        return false;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        *bad = true;
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static sk_result parse_machine(parse_ctx *c, const cJSON *jm, const char *path, g_machine **out, int depth);

static sk_result parse_blendspace(parse_ctx *c, const cJSON *jb, const char *path, g_state *s) {
    char p[300];
    if (!cJSON_IsObject(jb)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(jb, "parameters");
    pathf(p, sizeof p, "%s/parameters", path);
    int np = cJSON_GetArraySize(params);
    if (!cJSON_IsArray(params) || np < 1 || np > 2)
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array of 1 or 2 parameter names");
    s->bs_dim = (uint32_t)np;
    for (int i = 0; i < np; i++) {
        const cJSON *pn = cJSON_GetArrayItem(params, i);
        pathf(p, sizeof p, "%s/parameters/%d", path, i);
        if (!cJSON_IsString(pn)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a parameter name");
        int32_t k = find_param(c->g, pn->valuestring);
        if (k < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no parameter named '%s'", pn->valuestring);
        if (c->g->ptypes[k] != SK_PARAM_FLOAT)
            return PERR(c, SK_ERR_INVALID_DATA, p, "parameter '%s' is not a float", pn->valuestring);
        s->bs_param[i] = (uint32_t)k;
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(jb, "mode");
    s->bs_mode = SK_BLENDSPACE_CARTESIAN;
    if (mode) {
        pathf(p, sizeof p, "%s/mode", path);
        if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "cartesian")) s->bs_mode = SK_BLENDSPACE_CARTESIAN;
        else if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "polar")) s->bs_mode = SK_BLENDSPACE_POLAR;
        else return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"cartesian\" or \"polar\"");
        if (s->bs_mode == SK_BLENDSPACE_POLAR && np != 2)
            return PERR(c, SK_ERR_INVALID_DATA, p, "polar blend spaces need 2 parameters");
    }
    const cJSON *smp = cJSON_GetObjectItemCaseSensitive(jb, "samples");
    pathf(p, sizeof p, "%s/samples", path);
    int n = cJSON_GetArraySize(smp);
    if (!cJSON_IsArray(smp) || n < 1) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty array of samples");
    s->bs_n = (uint32_t)n;
    s->bs_points = arena_array(c, (size_t)n * (size_t)np, sizeof(float));
    s->bs_clips = arena_array(c, (size_t)n, sizeof(sk_clip *));
    s->bs_clip_index = arena_array(c, (size_t)n, sizeof(uint32_t));
    if (!s->bs_points || !s->bs_clips || !s->bs_clip_index) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(smp, i);
        pathf(p, sizeof p, "%s/samples/%d/clip", path, i);
        sk_result r = clip_ref(c, cJSON_GetObjectItemCaseSensitive(e, "clip"), p, &s->bs_clips[i], &s->bs_clip_index[i]);
        if (r != SK_OK) return r;
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at");
        pathf(p, sizeof p, "%s/samples/%d/at", path, i);
        if (!cJSON_IsArray(at) || cJSON_GetArraySize(at) != np)
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array of %d number(s)", np);
        for (int k = 0; k < np; k++) {
            const cJSON *v = cJSON_GetArrayItem(at, k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return PERR(c, SK_ERR_INVALID_DATA, p, "element %d is not a finite number", k);
            s->bs_points[i * np + k] = (float)v->valuedouble;
        }
    }
    /* validate the layout once (duplicate points) */
    float *w = arena_array(c, (size_t)n, sizeof(float));
    if (!w) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_error e2;
    if (sk_blendspace_weights(s->bs_points, s->bs_n, s->bs_dim, s->bs_points, s->bs_mode, w, &e2) != SK_OK) {
        pathf(p, sizeof p, "%s/samples", path);
        return PERR(c, SK_ERR_INVALID_DATA, p, "%s", e2.message);
    }
    return SK_OK;
}

static sk_result parse_state(parse_ctx *c, const cJSON *js, const char *path, g_state *s, int depth) {
    char p[300];
    if (!cJSON_IsObject(js)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(js, "name");
    pathf(p, sizeof p, "%s/name", path);
    if (!cJSON_IsString(name) || !name->valuestring[0] || !strcmp(name->valuestring, "*"))
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty state name other than \"*\"");
    s->name = sk_arena_strdup(&c->g->arena, name->valuestring);
    if (!s->name) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    bool bad = false;
    double sp;
    get_number(js, "speed", 1.0, &sp, &bad);
    if (bad) {
        pathf(p, sizeof p, "%s/speed", path);
        return PERR(c, SK_ERR_INVALID_DATA, p, "expected a finite number");
    }
    if (fabs(sp) > SK_GRAPH_MAX_SPEED) {
        pathf(p, sizeof p, "%s/speed", path);
        return PERR(c, SK_ERR_INVALID_DATA, p, "%g is outside [-%g, %g] (SK_GRAPH_MAX_SPEED)", sp,
                    (double)SK_GRAPH_MAX_SPEED, (double)SK_GRAPH_MAX_SPEED);
    }
    s->speed = (float)sp;
    s->loop = SK_LOOP_REPEAT;
    const cJSON *loop = cJSON_GetObjectItemCaseSensitive(js, "loop");
    if (loop) {
        pathf(p, sizeof p, "%s/loop", path);
        const char *l = cJSON_IsString(loop) ? loop->valuestring : "";
        if (!strcmp(l, "repeat")) s->loop = SK_LOOP_REPEAT;
        else if (!strcmp(l, "clamp")) s->loop = SK_LOOP_CLAMP;
        else if (!strcmp(l, "ping_pong")) s->loop = SK_LOOP_PING_PONG;
        else return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"repeat\", \"clamp\" or \"ping_pong\"");
    }
    const cJSON *clip = cJSON_GetObjectItemCaseSensitive(js, "clip");
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(js, "blendspace");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(js, "machine");
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(js, "external");
    int kinds = (clip != NULL) + (bs != NULL) + (m != NULL) + (ext != NULL);
    if (kinds != 1)
        return PERR(c, SK_ERR_INVALID_DATA, path,
                    "state '%s' needs exactly one of \"clip\", \"blendspace\", \"machine\", \"external\"", s->name);
    if (ext) {
        s->kind = KIND_EXTERNAL;
        pathf(p, sizeof p, "%s/external", path);
        if (!cJSON_IsString(ext) || !ext->valuestring[0])
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected the non-empty name of a pose source");
        s->source = sk_arena_strdup(&c->g->arena, ext->valuestring);
        if (!s->source) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        double cyc;
        get_number(js, "cycle", 1.0, &cyc, &bad);
        pathf(p, sizeof p, "%s/cycle", path);
        if (bad || !(cyc >= 1e-3 && cyc <= 3600.0))
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected seconds per cycle in [0.001, 3600]");
        s->cycle = (float)cyc;
        return SK_OK;
    }
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

static sk_result parse_cond(parse_ctx *c, const cJSON *jc, const char *path, g_cond *k) {
    char p[340];
    if (!cJSON_IsObject(jc)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    const cJSON *pn = cJSON_GetObjectItemCaseSensitive(jc, "param");
    pathf(p, sizeof p, "%s/param", path);
    if (!cJSON_IsString(pn)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a parameter name");
    int32_t pi = find_param(c->g, pn->valuestring);
    if (pi < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no parameter named '%s'", pn->valuestring);
    k->param = (uint32_t)pi;
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(jc, "op");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(jc, "value");
    sk_param_type t = c->g->ptypes[pi];
    if (t == SK_PARAM_TRIGGER) {
        if (op || val) return PERR(c, SK_ERR_INVALID_DATA, path, "trigger '%s' takes no \"op\" or \"value\"", pn->valuestring);
        k->op = OP_TRIGGER;
        return SK_OK;
    }
    if (t == SK_PARAM_BOOL) {
        pathf(p, sizeof p, "%s/value", path);
        if (val && !cJSON_IsBool(val)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected true or false");
        k->value = (!val || cJSON_IsTrue(val)) ? 1.0f : 0.0f;
        k->op = OP_EQ;
        if (op) {
            pathf(p, sizeof p, "%s/op", path);
            if (cJSON_IsString(op) && !strcmp(op->valuestring, "!=")) k->op = OP_NE;
            else if (!cJSON_IsString(op) || strcmp(op->valuestring, "=="))
                return PERR(c, SK_ERR_INVALID_DATA, p, "bool parameters take \"==\" or \"!=\"");
        }
        return SK_OK;
    }
    static const char *ops[] = {">", "<", ">=", "<=", "==", "!="};
    pathf(p, sizeof p, "%s/op", path);
    if (!cJSON_IsString(op)) return PERR(c, SK_ERR_INVALID_DATA, p, "float parameter '%s' needs an op (> < >= <= == !=)", pn->valuestring);
    int o = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(op->valuestring, ops[i])) o = i;
    if (o < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "unknown op '%s' (> < >= <= == !=)", op->valuestring);
    k->op = (uint8_t)o;
    pathf(p, sizeof p, "%s/value", path);
    if (!cJSON_IsNumber(val) || !isfinite(val->valuedouble)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a finite number");
    k->value = (float)val->valuedouble;
    return SK_OK;
}

static sk_result parse_machine(parse_ctx *c, const cJSON *jm, const char *path, g_machine **out, int depth) {
    char p[300];
    if (depth > 16) return PERR(c, SK_ERR_LIMIT, path, "machines nested more than 16 deep");
    if (!cJSON_IsObject(jm)) return PERR(c, SK_ERR_INVALID_DATA, path, "expected an object");
    g_machine *m = arena_array(c, 1, sizeof *m);
    if (!m) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    *out = m;
    const cJSON *states = cJSON_GetObjectItemCaseSensitive(jm, "states");
    pathf(p, sizeof p, "%s/states", path);
    int ns = cJSON_GetArraySize(states);
    if (!cJSON_IsArray(states) || ns < 1) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a non-empty array of states");
    m->nstates = (uint32_t)ns;
    m->states = arena_array(c, (size_t)ns, sizeof(g_state));
    if (!m->states) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < ns; i++) {
        pathf(p, sizeof p, "%s/states/%d", path, i);
        sk_result r = parse_state(c, cJSON_GetArrayItem(states, i), p, &m->states[i], depth);
        if (r != SK_OK) return r;
        for (int k = 0; k < i; k++)
            if (!strcmp(m->states[k].name, m->states[i].name)) {
                pathf(p, sizeof p, "%s/states/%d/name", path, i);
                return PERR(c, SK_ERR_INVALID_DATA, p, "duplicate state name '%s' (also states/%d)", m->states[i].name, k);
            }
    }
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(jm, "initial");
    m->initial = 0;
    if (init) {
        pathf(p, sizeof p, "%s/initial", path);
        int32_t k = cJSON_IsString(init) ? state_index(m, init->valuestring) : -1;
        if (k < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", cJSON_IsString(init) ? init->valuestring : "?");
        m->initial = (uint32_t)k;
    }
    const cJSON *trans = cJSON_GetObjectItemCaseSensitive(jm, "transitions");
    if (!trans) return SK_OK;
    pathf(p, sizeof p, "%s/transitions", path);
    if (!cJSON_IsArray(trans)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array");
    int nt = cJSON_GetArraySize(trans);
    m->ntrans = (uint32_t)nt;
    m->trans = arena_array(c, (size_t)nt, sizeof(g_trans));
    if (!m->trans) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < nt; i++) {
        const cJSON *jt = cJSON_GetArrayItem(trans, i);
        g_trans *t = &m->trans[i];
        char tp[300];
        pathf(tp, sizeof tp, "%s/transitions/%d", path, i);
        if (!cJSON_IsObject(jt)) return PERR(c, SK_ERR_INVALID_DATA, tp, "expected an object");
        const cJSON *from = cJSON_GetObjectItemCaseSensitive(jt, "from"), *to = cJSON_GetObjectItemCaseSensitive(jt, "to");
        pathf(p, sizeof p, "%s/from", tp);
        if (!cJSON_IsString(from)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected a state name or \"*\"");
        t->from = !strcmp(from->valuestring, "*") ? -1 : state_index(m, from->valuestring);
        if (t->from == -1 && strcmp(from->valuestring, "*"))
            return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", from->valuestring);
        pathf(p, sizeof p, "%s/to", tp);
        int32_t ti = cJSON_IsString(to) ? state_index(m, to->valuestring) : -1;
        if (ti < 0) return PERR(c, SK_ERR_INVALID_DATA, p, "no state named '%s' in this machine", cJSON_IsString(to) ? to->valuestring : "?");
        t->to = (uint32_t)ti;
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
        if (bad || (t->exit_time < 0.0f && cJSON_GetObjectItemCaseSensitive(jt, "exit_time") &&
                    !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(jt, "exit_time")))) {
            pathf(p, sizeof p, "%s/exit_time", tp);
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected a number >= 0 (normalised time) or null");
        }
        const cJSON *curve = cJSON_GetObjectItemCaseSensitive(jt, "curve");
        t->curve = SK_FADE_LINEAR;
        if (curve) {
            pathf(p, sizeof p, "%s/curve", tp);
            if (cJSON_IsString(curve) && !strcmp(curve->valuestring, "smoothstep")) t->curve = SK_FADE_SMOOTHSTEP;
            else if (!cJSON_IsString(curve) || strcmp(curve->valuestring, "linear"))
                return PERR(c, SK_ERR_INVALID_DATA, p, "expected \"linear\" or \"smoothstep\"");
        }
        const cJSON *sync = cJSON_GetObjectItemCaseSensitive(jt, "sync");
        if (sync && !cJSON_IsBool(sync)) {
            pathf(p, sizeof p, "%s/sync", tp);
            return PERR(c, SK_ERR_INVALID_DATA, p, "expected true or false");
        }
        t->sync = cJSON_IsTrue(sync);
        const cJSON *conds = cJSON_GetObjectItemCaseSensitive(jt, "conditions");
        if (conds) {
            pathf(p, sizeof p, "%s/conditions", tp);
            if (!cJSON_IsArray(conds)) return PERR(c, SK_ERR_INVALID_DATA, p, "expected an array");
            t->ncond = (uint32_t)cJSON_GetArraySize(conds);
            t->conds = arena_array(c, t->ncond, sizeof(g_cond));
            if (!t->conds) return sk_error_set(c->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            for (uint32_t k = 0; k < t->ncond; k++) {
                pathf(p, sizeof p, "%s/conditions/%u", tp, k);
                sk_result r = parse_cond(c, cJSON_GetArrayItem(conds, (int)k), p, &t->conds[k]);
                if (r != SK_OK) return r;
            }
        }
        if (!t->ncond && t->exit_time < 0.0f)
            return PERR(c, SK_ERR_INVALID_DATA, tp, "a transition needs conditions or an exit_time (it would fire at once)");
    }
    return SK_OK;
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
    /* cJSON's tree (its own malloc) lives until this function returns. */
    cJSON *root = NULL;
    size_t at = 0;
    const char *what = "";
    sk_result r = sk_json_parse(json, len, &root, &at, &what);
    if (r == SK_ERR_OUT_OF_MEMORY) {
        r = sk_error_set(err, r, "%s%sout of memory building the JSON parse tree", c.prefix, c.prefix[0] ? ": " : "");
        goto fail;
    }
    if (r != SK_OK) {
        r = sk_error_set(err, r, "%s%sinvalid JSON near byte %zu: %s", c.prefix, c.prefix[0] ? ": " : "", at, what);
        goto fail;
    }
    if (!cJSON_IsObject(root)) {
        r = PERR(&c, SK_ERR_INVALID_DATA, "", "expected an object with \"parameters\" and \"machine\"");
        goto fail;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    if (params && !cJSON_IsArray(params)) {
        r = PERR(&c, SK_ERR_INVALID_DATA, "/parameters", "expected an array");
        goto fail;
    }
    g->nparams = (uint32_t)cJSON_GetArraySize(params);
    g->pnames = arena_array(&c, g->nparams, sizeof(char *));
    g->ptypes = arena_array(&c, g->nparams, sizeof(sk_param_type));
    g->pdefault = arena_array(&c, g->nparams, sizeof(float));
    if (!g->pnames || !g->ptypes || !g->pdefault) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < g->nparams; i++) {
        char p[96];
        const cJSON *jp = cJSON_GetArrayItem(params, (int)i);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(jp, "name"), *type = cJSON_GetObjectItemCaseSensitive(jp, "type");
        pathf(p, sizeof p, "/parameters/%u/name", i);
        if (!cJSON_IsString(name) || !name->valuestring[0]) {
            r = PERR(&c, SK_ERR_INVALID_DATA, p, "expected a non-empty name");
            goto fail;
        }
        g->nparams = i; /* duplicates: search the ones before */
        if (find_param(g, name->valuestring) >= 0) {
            r = PERR(&c, SK_ERR_INVALID_DATA, p, "duplicate parameter '%s'", name->valuestring);
            goto fail;
        }
        g->nparams = (uint32_t)cJSON_GetArraySize(params);
        g->pnames[i] = sk_arena_strdup(&g->arena, name->valuestring);
        if (!g->pnames[i]) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            goto fail;
        }
        pathf(p, sizeof p, "/parameters/%u/type", i);
        const char *ts = cJSON_IsString(type) ? type->valuestring : "";
        if (!strcmp(ts, "float")) g->ptypes[i] = SK_PARAM_FLOAT;
        else if (!strcmp(ts, "bool")) g->ptypes[i] = SK_PARAM_BOOL;
        else if (!strcmp(ts, "trigger")) g->ptypes[i] = SK_PARAM_TRIGGER;
        else {
            r = PERR(&c, SK_ERR_INVALID_DATA, p, "expected \"float\", \"bool\" or \"trigger\"");
            goto fail;
        }
        const cJSON *def = cJSON_GetObjectItemCaseSensitive(jp, "default");
        pathf(p, sizeof p, "/parameters/%u/default", i);
        if (def && g->ptypes[i] == SK_PARAM_FLOAT) {
            if (!cJSON_IsNumber(def) || !isfinite(def->valuedouble)) {
                r = PERR(&c, SK_ERR_INVALID_DATA, p, "expected a finite number");
                goto fail;
            }
            g->pdefault[i] = (float)def->valuedouble;
        } else if (def && g->ptypes[i] == SK_PARAM_BOOL) {
            if (!cJSON_IsBool(def)) {
                r = PERR(&c, SK_ERR_INVALID_DATA, p, "expected true or false");
                goto fail;
            }
            g->pdefault[i] = cJSON_IsTrue(def) ? 1.0f : 0.0f;
        } else if (def) {
            r = PERR(&c, SK_ERR_INVALID_DATA, p, "triggers have no default");
            goto fail;
        }
    }
    const cJSON *rmj = cJSON_GetObjectItemCaseSensitive(root, "root_motion");
    if (rmj) {
        const cJSON *jn = cJSON_GetObjectItemCaseSensitive(rmj, "joint");
        if (!cJSON_IsString(jn)) {
            r = PERR(&c, SK_ERR_INVALID_DATA, "/root_motion/joint", "expected a joint name");
            goto fail;
        }
        g->rm_joint = sk_skeleton_find(skel, jn->valuestring);
        if (g->rm_joint < 0) {
            r = PERR(&c, SK_ERR_INVALID_DATA, "/root_motion/joint", "no joint named '%s' in the skeleton", jn->valuestring);
            goto fail;
        }
        g->nclips = clip_count;
        g->rm = arena_array(&c, clip_count, sizeof(sk_root_motion *));
        if (!g->rm) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            goto fail;
        }
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "machine");
    if (!m) {
        r = PERR(&c, SK_ERR_INVALID_DATA, "/machine", "missing (the top state machine)");
        goto fail;
    }
    r = parse_machine(&c, m, "/machine", &g->root, 0);
    if (r != SK_OK) goto fail;
    cJSON_Delete(root);
    *out = g;
    return SK_OK;
fail:
    cJSON_Delete(root);
    sk_graph_destroy(g);
    return r;
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
