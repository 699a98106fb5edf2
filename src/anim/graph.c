/* Animation state machines (graph.h): the runtime. States play a clip, a
 * gradient-band blend space (seed 002 §4.2), a nested machine or a pose the
 * caller makes (external); transitions
 * crossfade through sk_fader (interruptible without a pop) with optional
 * phase synchronisation (seed 002 §4.1). The JSON description is read by
 * io/graph_json.c into the structures of graph_internal.h. */
#include "anim/graph_internal.h"
#include "skelanim/anim/blend.h"

#include <math.h>

void sk_graph_destroy(sk_graph *g) {
    if (!g) return;
    for (uint32_t i = 0; g->rm && i < g->nclips; i++) sk_root_motion_destroy(g->rm[i]);
    sk_arena a = g->arena; /* g lives in its own arena */
    sk_arena_release(&a);
}

uint32_t sk_graph_param_count(const sk_graph *g) { return g->nparams; }
int32_t sk_graph_find_param(const sk_graph *g, const char *name) { return name ? find_param(g, name) : -1; }
const char *sk_graph_param_name(const sk_graph *g, uint32_t i) { return i < g->nparams ? g->pnames[i] : NULL; }
sk_param_type sk_graph_param_type(const sk_graph *g, uint32_t i) { return i < g->nparams ? g->ptypes[i] : SK_PARAM_FLOAT; }

/* ---- instances ---- */

typedef struct r_machine r_machine;

typedef struct r_state {
    sk_player *pl;       /* 1 (clip) or bs_n (blend space) */
    uint32_t **cur;      /* per clip: a key cursor per track (amortised O(1) sampling) */
    float *bsw;          /* blend-space weights */
    sk_pose *bspose;     /* a pose per sample clip */
    r_machine *sub;
    double norm;         /* cycles played since entered (nested machine: seconds) */
} r_state;

struct r_machine {
    const g_machine *def;
    r_state *st;
    sk_fader fader;
    uint32_t current;
    bool sync;
    sk_pose pose[SK_FADER_MAX];
};

struct sk_graph_instance {
    sk_arena arena;
    const sk_graph *g;
    float *params;
    r_machine *root;
    sk_blend_input inputs[SK_FADER_MAX];
    sk_blend_input *bs_inputs; /* max blend-space sample count */
    sk_root_delta *bs_deltas;  /* likewise: root motion per sample */
    float *bs_dweights;
    uint32_t bs_max;
    sk_root_delta delta;       /* root motion of the last update */
    sk_graph_pose_fn source;   /* external states' poses */
    void *source_user;
};

static bool alloc_pose(sk_graph_instance *in, sk_pose *p) {
    const sk_skeleton *s = in->g->skel;
    p->joint_count = s->joint_count;
    p->weight_count = s->weight_total;
    p->local = sk_arena_alloc(&in->arena, sizeof(sk_transform) * (s->joint_count ? s->joint_count : 1));
    p->weights = s->weight_total ? sk_arena_alloc(&in->arena, sizeof(float) * s->weight_total) : NULL;
    return p->local && (!s->weight_total || p->weights);
}

static r_machine *make_machine(sk_graph_instance *in, const g_machine *gm) {
    r_machine *m = sk_arena_alloc(&in->arena, sizeof *m);
    if (!m) return NULL;
    m->def = gm;
    m->st = sk_arena_alloc(&in->arena, sizeof(r_state) * gm->nstates);
    if (!m->st) return NULL;
    for (uint32_t k = 0; k < SK_FADER_MAX; k++)
        if (!alloc_pose(in, &m->pose[k])) return NULL;
    for (uint32_t i = 0; i < gm->nstates; i++) {
        const g_state *gs = &gm->states[i];
        r_state *rs = &m->st[i];
        if (gs->kind == KIND_CLIP) {
            rs->pl = sk_arena_alloc(&in->arena, sizeof(sk_player));
            rs->cur = sk_arena_alloc(&in->arena, sizeof(uint32_t *));
            if (!rs->pl || !rs->cur) return NULL;
            rs->cur[0] = sk_arena_alloc(&in->arena, sizeof(uint32_t) * sk_clip_track_count(gs->clip));
            if (!rs->cur[0]) return NULL;
        } else if (gs->kind == KIND_BLENDSPACE) {
            rs->cur = sk_arena_alloc(&in->arena, sizeof(uint32_t *) * gs->bs_n);
            if (!rs->cur) return NULL;
            for (uint32_t k = 0; k < gs->bs_n; k++)
                if (!(rs->cur[k] = sk_arena_alloc(&in->arena, sizeof(uint32_t) * sk_clip_track_count(gs->bs_clips[k]))))
                    return NULL;
            rs->pl = sk_arena_alloc(&in->arena, sizeof(sk_player) * gs->bs_n);
            rs->bsw = sk_arena_alloc(&in->arena, sizeof(float) * gs->bs_n);
            rs->bspose = sk_arena_alloc(&in->arena, sizeof(sk_pose) * gs->bs_n);
            if (!rs->pl || !rs->bsw || !rs->bspose) return NULL;
            for (uint32_t k = 0; k < gs->bs_n; k++)
                if (!alloc_pose(in, &rs->bspose[k])) return NULL;
            if (gs->bs_n > in->bs_max) in->bs_max = gs->bs_n;
        } else if (gs->kind == KIND_MACHINE) {
            rs->sub = make_machine(in, gs->sub);
            if (!rs->sub) return NULL;
        }
    }
    return m;
}

static void bs_weights(const sk_graph_instance *in, const g_state *gs, r_state *rs) {
    float q[2] = {in->params[gs->bs_param[0]], gs->bs_dim > 1 ? in->params[gs->bs_param[1]] : 0.0f};
    if (sk_blendspace_weights(gs->bs_points, gs->bs_n, gs->bs_dim, q, gs->bs_mode, rs->bsw, NULL) != SK_OK) {
        for (uint32_t k = 0; k < gs->bs_n; k++) rs->bsw[k] = k == 0 ? 1.0f : 0.0f; /* NaN parameter */
    }
}

static void machine_reset(sk_graph_instance *in, r_machine *m);

static void state_reset(sk_graph_instance *in, r_machine *m, uint32_t i, double phase) {
    const g_state *gs = &m->def->states[i];
    r_state *rs = &m->st[i];
    rs->norm = 0.0;
    sk_player_desc d = {0};
    d.loop = gs->loop;
    d.speed = gs->speed == 0.0f ? 1.0f : gs->speed;
    d.paused = gs->speed == 0.0f;
    if (gs->kind == KIND_CLIP) {
        d.duration = sk_clip_duration(gs->clip);
        sk_player_init(rs->pl, &d);
        sk_player_seek_phase(rs->pl, phase);
    } else if (gs->kind == KIND_BLENDSPACE) {
        for (uint32_t k = 0; k < gs->bs_n; k++) {
            d.duration = sk_clip_duration(gs->bs_clips[k]);
            sk_player_init(&rs->pl[k], &d);
            sk_player_seek_phase(&rs->pl[k], phase);
        }
        bs_weights(in, gs, rs);
    } else if (gs->kind == KIND_MACHINE) {
        machine_reset(in, rs->sub);
    } else {
        rs->norm = phase; /* external: its normalised time starts at the source's phase when synced */
    }
}

static void machine_reset(sk_graph_instance *in, r_machine *m) {
    m->current = m->def->initial;
    m->sync = false;
    sk_fader_init(&m->fader, m->current);
    state_reset(in, m, m->current, 0.0);
}

void sk_graph_instance_destroy(sk_graph_instance *inst) {
    if (!inst) return;
    sk_arena a = inst->arena;
    sk_arena_release(&a);
}

sk_result sk_graph_instance_create(const sk_graph *g, const sk_allocator *alloc, sk_graph_instance **out, sk_error *err) {
    if (!g || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_graph_instance_create: NULL argument");
    *out = NULL;
    sk_arena arena;
    sk_arena_init(&arena, alloc);
    sk_graph_instance *in = sk_arena_alloc(&arena, sizeof *in);
    if (!in) {
        sk_arena_release(&arena);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    in->arena = arena;
    in->g = g;
    in->params = sk_arena_alloc(&in->arena, sizeof(float) * (g->nparams ? g->nparams : 1));
    in->root = in->params ? make_machine(in, g->root) : NULL;
    uint32_t bmax = in->bs_max ? in->bs_max : 1;
    in->bs_inputs = in->root ? sk_arena_alloc(&in->arena, sizeof(sk_blend_input) * bmax) : NULL;
    in->bs_deltas = in->root ? sk_arena_alloc(&in->arena, sizeof(sk_root_delta) * bmax) : NULL;
    in->bs_dweights = in->root ? sk_arena_alloc(&in->arena, sizeof(float) * bmax) : NULL;
    if (!in->bs_inputs || !in->bs_deltas || !in->bs_dweights) {
        sk_graph_instance_destroy(in);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < g->nparams; i++) in->params[i] = g->pdefault[i];
    machine_reset(in, in->root);
    *out = in;
    return SK_OK;
}

static sk_result param_by_name(sk_graph_instance *in, const char *name, sk_param_type want, int32_t *idx, sk_error *err) {
    static const char *tn[] = {"float", "bool", "trigger"};
    *idx = name ? find_param(in->g, name) : -1;
    if (*idx < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "no parameter named '%s'", name ? name : "(null)");
    if (in->g->ptypes[*idx] != want)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "parameter '%s' is a %s, not a %s", name, tn[in->g->ptypes[*idx]],
                            tn[want]);
    return SK_OK;
}

sk_result sk_graph_set_float(sk_graph_instance *in, const char *name, float v, sk_error *err) {
    int32_t i;
    sk_result r = param_by_name(in, name, SK_PARAM_FLOAT, &i, err);
    if (r == SK_OK) in->params[i] = v;
    return r;
}
sk_result sk_graph_set_bool(sk_graph_instance *in, const char *name, bool v, sk_error *err) {
    int32_t i;
    sk_result r = param_by_name(in, name, SK_PARAM_BOOL, &i, err);
    if (r == SK_OK) in->params[i] = v ? 1.0f : 0.0f;
    return r;
}
sk_result sk_graph_set_trigger(sk_graph_instance *in, const char *name, sk_error *err) {
    int32_t i;
    sk_result r = param_by_name(in, name, SK_PARAM_TRIGGER, &i, err);
    if (r == SK_OK) in->params[i] = 1.0f;
    return r;
}
void sk_graph_set_param(sk_graph_instance *in, uint32_t i, float v) {
    if (i < in->g->nparams) in->params[i] = v;
}
float sk_graph_get_param(const sk_graph_instance *in, uint32_t i) { return i < in->g->nparams ? in->params[i] : 0.0f; }

/* ---- update ---- */

static bool cond_holds(const sk_graph_instance *in, const g_cond *c) {
    float v = in->params[c->param];
    switch (c->op) {
    case OP_GT: return v > c->value;
    case OP_LT: return v < c->value;
    case OP_GE: return v >= c->value;
    case OP_LE: return v <= c->value;
    case OP_EQ: return v == c->value;
    case OP_NE: return v != c->value;
    default: return v != 0.0f; /* trigger */
    }
}

static double state_cycle(const g_state *gs, const r_state *rs) {
    double sp = fabs(gs->speed != 0.0f ? gs->speed : 1.0f);
    if (gs->kind == KIND_CLIP) return rs->pl->period > 0.0 ? rs->pl->period / sp : 1.0;
    if (gs->kind == KIND_BLENDSPACE) {
        double sw = 0.0, sd = 0.0;
        for (uint32_t k = 0; k < gs->bs_n; k++) {
            if (!(rs->bsw[k] > 0.0f) || !(rs->pl[k].period > 0.0)) continue;
            sw += rs->bsw[k];
            sd += rs->bsw[k] * rs->pl[k].period;
        }
        return sw > 0.0 && sd > 0.0 ? sd / sw / sp : 1.0;
    }
    if (gs->kind == KIND_EXTERNAL) return gs->cycle > 0.0f ? gs->cycle / sp : 1.0;
    return 1.0;
}

static double state_phase(const g_state *gs, const r_state *rs) {
    if (gs->kind == KIND_CLIP) return sk_player_phase(rs->pl);
    if (gs->kind == KIND_BLENDSPACE) {
        uint32_t best = 0;
        for (uint32_t k = 1; k < gs->bs_n; k++)
            if (rs->bsw[k] > rs->bsw[best]) best = k;
        return sk_player_phase(&rs->pl[best]);
    }
    if (gs->kind == KIND_EXTERNAL) return rs->norm - floor(rs->norm);
    return 0.0;
}

/* Advances a state by dt seconds, or (phase_step >= 0) by that many cycles;
 * returns its root motion over the step. */
static sk_root_delta machine_update(sk_graph_instance *in, r_machine *m, double dt);

static sk_root_delta clip_step(const sk_graph_instance *in, uint32_t clip_index, sk_player *p, double local_dt) {
    sk_player before = *p;
    sk_player_step(p, local_dt, NULL, 0, NULL, NULL);
    const sk_root_motion *rm = in->g->rm ? in->g->rm[clip_index] : NULL;
    return rm ? sk_root_motion_delta(rm, &before, p) : sk_root_delta_identity();
}

static sk_root_delta state_advance(sk_graph_instance *in, r_machine *m, uint32_t i, double dt, double phase_step) {
    const g_state *gs = &m->def->states[i];
    r_state *rs = &m->st[i];
    double dir = gs->speed < 0.0f ? -1.0 : 1.0;
    if (gs->kind == KIND_MACHINE) {
        rs->norm += dt;
        return machine_update(in, rs->sub, dt);
    }
    if (gs->kind == KIND_BLENDSPACE) bs_weights(in, gs, rs);
    if (gs->speed == 0.0f) return sk_root_delta_identity();
    if (phase_step < 0.0) phase_step = dt / state_cycle(gs, rs);
    if (phase_step > SK_PLAYER_MAX_STEP_CYCLES) phase_step = SK_PLAYER_MAX_STEP_CYCLES; /* what the players move */
    rs->norm += phase_step;
    if (gs->kind == KIND_EXTERNAL) return sk_root_delta_identity(); /* the source moves the character itself */
    if (gs->kind == KIND_CLIP) return clip_step(in, gs->clip_index, rs->pl, dir * phase_step * rs->pl->period);
    /* every sample with weight contributes (scratch sized for the largest blend space) */
    sk_root_delta *d = in->bs_deltas;
    float *w = in->bs_dweights;
    uint32_t nd = 0;
    for (uint32_t k = 0; k < gs->bs_n; k++) {
        sk_root_delta dk = clip_step(in, gs->bs_clip_index[k], &rs->pl[k], dir * phase_step * rs->pl[k].period);
        if (rs->bsw[k] > 0.0f) {
            d[nd] = dk;
            w[nd++] = rs->bsw[k];
        }
    }
    return sk_root_delta_blend(d, w, nd);
}

static void fire(sk_graph_instance *in, r_machine *m, const g_trans *t) {
    for (uint32_t k = 0; k < t->ncond; k++)
        if (t->conds[k].op == OP_TRIGGER) in->params[t->conds[k].param] = 0.0f; /* consumed */
    const g_state *cur = &m->def->states[m->current];
    double phase = t->sync ? state_phase(cur, &m->st[m->current]) : 0.0;
    if (sk_fader_weight(&m->fader, t->to) <= 0.0f)
        state_reset(in, m, t->to, phase); /* a state still fading out keeps playing: no pop when coming back */
    else
        m->st[t->to].norm = 0.0;
    sk_fader_start(&m->fader, t->to, t->duration, t->curve);
    m->current = t->to;
    m->sync = t->sync;
}

static bool try_transitions(sk_graph_instance *in, r_machine *m, int32_t from) {
    const g_machine *gm = m->def;
    for (uint32_t i = 0; i < gm->ntrans; i++) {
        const g_trans *t = &gm->trans[i];
        if (t->from != from || t->to == m->current) continue;
        if (t->exit_time >= 0.0f && m->st[m->current].norm < t->exit_time) continue;
        bool ok = true;
        for (uint32_t k = 0; k < t->ncond && ok; k++) ok = cond_holds(in, &t->conds[k]);
        if (!ok) continue;
        fire(in, m, t);
        return true;
    }
    return false;
}

static sk_root_delta machine_update(sk_graph_instance *in, r_machine *m, double dt) {
    if (!try_transitions(in, m, -1)) try_transitions(in, m, (int32_t)m->current);
    sk_fader *f = &m->fader;
    double phase_step = -1.0;
    if (m->sync && sk_fader_in_transition(f)) {
        /* common phase rate over the states being blended (seed 002 §4.1) */
        double D = 0.0;
        for (uint32_t k = 0; k < f->count; k++) {
            const g_state *gs = &m->def->states[f->id[k]];
            if (gs->kind == KIND_BLENDSPACE) bs_weights(in, gs, &m->st[f->id[k]]);
            D += f->weight[k] * state_cycle(gs, &m->st[f->id[k]]);
        }
        if (D > 0.0) phase_step = dt / D;
    }
    sk_root_delta d[SK_FADER_MAX];
    float w[SK_FADER_MAX];
    uint32_t n = f->count;
    for (uint32_t k = 0; k < n; k++) {
        d[k] = state_advance(in, m, f->id[k], dt, phase_step);
        w[k] = f->weight[k];
    }
    sk_fader_update(f, dt);
    if (!sk_fader_in_transition(f)) m->sync = false;
    return sk_root_delta_blend(d, w, n);
}

void sk_graph_update(sk_graph_instance *in, double dt) {
    if (!in || !(dt >= 0.0) || !isfinite(dt)) return;
    in->delta = machine_update(in, in->root, dt);
}

sk_root_delta sk_graph_root_motion(const sk_graph_instance *in) { return in ? in->delta : sk_root_delta_identity(); }

/* ---- evaluate ---- */

static sk_result machine_eval(sk_graph_instance *in, r_machine *m, sk_pose *out, sk_error *err);

static sk_result state_eval(sk_graph_instance *in, r_machine *m, uint32_t i, sk_pose *out, sk_error *err) {
    const g_state *gs = &m->def->states[i];
    r_state *rs = &m->st[i];
    const sk_skeleton *skel = in->g->skel;
    sk_root_motion *const *rms = in->g->rm;
    if (gs->kind == KIND_CLIP) {
        sk_result r = sk_clip_sample_cursor(gs->clip, skel, sk_player_clip_time(rs->pl), SK_LOOP_CLAMP, rs->cur[0],
                                            sk_clip_track_count(gs->clip), out, err);
        if (r == SK_OK && rms && rms[gs->clip_index]) r = sk_root_motion_strip(rms[gs->clip_index], out, err);
        return r;
    }
    if (gs->kind == KIND_MACHINE) return machine_eval(in, rs->sub, out, err);
    if (gs->kind == KIND_EXTERNAL) {
        if (!in->source)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "state '%s' takes its pose from '%s': no pose source is set (sk_graph_set_pose_source)",
                                gs->name, gs->source);
        return in->source(in->source_user, gs->source, out, err);
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < gs->bs_n; k++) {
        if (!(rs->bsw[k] > 0.0f)) continue;
        sk_result r = sk_clip_sample_cursor(gs->bs_clips[k], skel, sk_player_clip_time(&rs->pl[k]), SK_LOOP_CLAMP,
                                            rs->cur[k], sk_clip_track_count(gs->bs_clips[k]), &rs->bspose[k], err);
        if (r == SK_OK && rms && rms[gs->bs_clip_index[k]])
            r = sk_root_motion_strip(rms[gs->bs_clip_index[k]], &rs->bspose[k], err);
        if (r != SK_OK) return r;
        sk_blend_input bi = {&rs->bspose[k], rs->bsw[k], NULL, NULL};
        in->bs_inputs[n++] = bi;
    }
    if (n == 1) {
        const sk_pose *p = in->bs_inputs[0].pose;
        memcpy(out->local, p->local, sizeof(sk_transform) * skel->joint_count);
        if (out->weight_count) memcpy(out->weights, p->weights, sizeof(float) * skel->weight_total);
        return SK_OK;
    }
    return sk_blend_poses(skel, in->bs_inputs, n, NULL, out, err);
}

static sk_result machine_eval(sk_graph_instance *in, r_machine *m, sk_pose *out, sk_error *err) {
    const sk_fader *f = &m->fader;
    if (f->count == 1) return state_eval(in, m, f->id[0], out, err);
    sk_blend_input inputs[SK_FADER_MAX];
    for (uint32_t k = 0; k < f->count; k++) {
        sk_result r = state_eval(in, m, f->id[k], &m->pose[k], err);
        if (r != SK_OK) return r;
        sk_blend_input bi = {&m->pose[k], f->weight[k], NULL, NULL};
        inputs[k] = bi;
    }
    sk_blend_options o = {SK_BLEND_NLERP, true};
    return sk_blend_poses(in->g->skel, inputs, f->count, &o, out, err);
}

sk_result sk_graph_evaluate(sk_graph_instance *in, sk_pose *out, sk_error *err) {
    if (!in) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_graph_evaluate: NULL instance");
    sk_result r = sk_pose_check(in->g->skel, out, "sk_graph_evaluate", err);
    if (r != SK_OK) return r;
    return machine_eval(in, in->root, out, err);
}

void sk_graph_set_pose_source(sk_graph_instance *in, sk_graph_pose_fn fn, void *user) {
    if (!in) return;
    in->source = fn;
    in->source_user = fn ? user : NULL;
}

/* ---- introspection ---- */

static void list_states(const r_machine *m, uint32_t depth, float gw, sk_graph_state_info *out, uint32_t cap, uint32_t *n) {
    const sk_fader *f = &m->fader;
    for (uint32_t k = 0; k < f->count; k++) {
        uint32_t i = f->id[k];
        if (*n < cap) {
            sk_graph_state_info *s = &out[*n];
            s->name = m->def->states[i].name;
            s->depth = depth;
            s->weight = f->weight[k];
            s->global_weight = gw * f->weight[k];
            s->current = i == m->current;
            s->normalized_time = m->st[i].norm;
        }
        (*n)++;
        if (m->st[i].sub) list_states(m->st[i].sub, depth + 1, gw * f->weight[k], out, cap, n);
    }
}

uint32_t sk_graph_active_states(const sk_graph_instance *in, sk_graph_state_info *out, uint32_t cap) {
    uint32_t n = 0;
    if (in) list_states(in->root, 0, 1.0f, out, out ? cap : 0, &n);
    return n;
}

static float source_weight(const r_machine *m, float gw, const char *source) {
    float sum = 0.0f;
    const sk_fader *f = &m->fader;
    for (uint32_t k = 0; k < f->count; k++) {
        uint32_t i = f->id[k];
        const g_state *gs = &m->def->states[i];
        if (gs->kind == KIND_EXTERNAL && !strcmp(gs->source, source)) sum += gw * f->weight[k];
        if (m->st[i].sub) sum += source_weight(m->st[i].sub, gw * f->weight[k], source);
    }
    return sum;
}

static uint32_t count_source(const g_machine *m, const char *source) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nstates; i++) {
        const g_state *gs = &m->states[i];
        if (gs->kind == KIND_EXTERNAL && !strcmp(gs->source, source)) n++;
        if (gs->kind == KIND_MACHINE) n += count_source(gs->sub, source);
    }
    return n;
}

uint32_t sk_graph_source_count(const sk_graph *g, const char *source) {
    return g && source ? count_source(g->root, source) : 0;
}

float sk_graph_source_weight(const sk_graph_instance *in, const char *source) {
    if (!in || !source) return 0.0f;
    float w = source_weight(in->root, 1.0f, source);
    return w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
}

const char *sk_graph_current_state(const sk_graph_instance *in) {
    return in ? in->root->def->states[in->root->current].name : NULL;
}
