/* skelanim — BVH writer (include/skelanim/io/bvh.h, "Writing"; docs/bvh.md).
 *
 * Two passes over the frames, sampling the clip each time (no frame is kept):
 * the first picks each joint's Euler order (the one whose middle angle stays
 * farthest from +-90 degrees), the second writes the frames, unwrapping each
 * joint's angles against the previous frame. Rotations are turned into the
 * joints' world-aligned rest frames and decomposed in double. */
#include "skelanim/io/bvh.h"
#include "core/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BW_PI 3.14159265358979323846

typedef struct dq { double w, x, y, z; } dq;

static dq dq_of(sk_quat q) { return (dq){q.w, q.x, q.y, q.z}; }
static dq dq_mul(dq a, dq b) {
    return (dq){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static dq dq_conj(dq a) { return (dq){a.w, -a.x, -a.y, -a.z}; }
static dq dq_norm(dq a) {
    double n = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
    return n > 0.0 ? (dq){a.w / n, a.x / n, a.y / n, a.z / n} : (dq){1, 0, 0, 0};
}
static void dq_rotate(dq q, const double v[3], double out[3]) {
    dq p = dq_mul(dq_mul(q, (dq){0, v[0], v[1], v[2]}), dq_conj(q));
    out[0] = p.x, out[1] = p.y, out[2] = p.z;
}
static void dq_matrix(dq q, double m[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - w * z), m[0][2] = 2 * (x * z + w * y);
    m[1][0] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - w * x);
    m[2][0] = 2 * (x * z - w * y), m[2][1] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
}

/* The axes of each order, first to last as the channels are listed:
 * R = R_i(a) R_j(b) R_k(c) (intrinsic, column vectors). */
static const int order_axes[7][3] = {{0, 1, 2}, {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const char *const order_names[7] = {"auto", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};

const char *sk_bvh_euler_name(sk_bvh_euler order) {
    return (unsigned)order <= SK_BVH_EULER_ZYX ? order_names[order] : NULL;
}

/* The angles (radians) of R = R_i(a) R_j(b) R_k(c); |b| <= pi/2. */
static void euler_of(const double m[3][3], int order, double e[3]) {
    int i = order_axes[order][0], j = order_axes[order][1], k = order_axes[order][2];
    double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0; /* +1 for XYZ, YZX, ZXY */
    double sb = s * m[i][k];
    e[1] = asin(sb > 1.0 ? 1.0 : sb < -1.0 ? -1.0 : sb);
    if (fabs(sb) < 1.0 - 1e-12) {
        e[0] = atan2(-s * m[j][k], m[k][k]);
        e[2] = atan2(-s * m[i][j], m[i][i]);
    } else { /* gimbal lock: a and c turn about one axis; put it all in a */
        e[2] = 0.0;
        e[0] = atan2(s * m[k][j], m[j][j]);
    }
}

/* The triple equivalent to e nearest prev: the other solution (a + pi, pi - b,
 * c + pi), each angle shifted by whole turns. */
static double wrap_near(double x, double ref) { return x - 2.0 * BW_PI * floor((x - ref) / (2.0 * BW_PI) + 0.5); }
static void unwrap(double e[3], const double prev[3]) {
    double c1[3] = {wrap_near(e[0], prev[0]), wrap_near(e[1], prev[1]), wrap_near(e[2], prev[2])};
    double c2[3] = {wrap_near(e[0] + BW_PI, prev[0]), wrap_near(BW_PI - e[1], prev[1]), wrap_near(e[2] + BW_PI, prev[2])};
    double d1 = 0, d2 = 0;
    for (int n = 0; n < 3; n++) d1 += fabs(c1[n] - prev[n]), d2 += fabs(c2[n] - prev[n]);
    memcpy(e, d2 < d1 ? c2 : c1, sizeof c1);
}

/* ---- text ---- */
/* Indentation: two spaces a level, at most 16 levels (a 10,000-deep chain
 * stays a file of lines, not of spaces; readers ignore the whitespace). */
#define IND(d) ((int)(2 * ((d) < 16 ? (d) : 16)))

typedef struct wbuf {
    const sk_allocator *a;
    char *p;
    size_t len, cap;
    bool oom;
} wbuf;

static void put(wbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) n = n < 0 ? 0 : (int)sizeof tmp - 1;
    if (b->len + (size_t)n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->len + (size_t)n) nc *= 2;
        char *q = sk_realloc_raw(b->a, b->p, b->cap, nc);
        if (!q) { b->oom = true; return; }
        b->p = q, b->cap = nc;
    }
    memcpy(b->p + b->len, tmp, (size_t)n);
    b->len += (size_t)n;
}

static void put_name(wbuf *b, const char *name, uint32_t j) {
    if (!name || !name[0]) { put(b, "joint_%u", j); return; }
    char tmp[200];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof tmp; c++)
        tmp[n++] = (*c == ' ' || *c == '\t' || *c == '{' || *c == '}' || *c == '\n' || *c == '\r') ? '_' : *c;
    tmp[n] = 0;
    put(b, "%s", tmp);
}

/* ---- the writer ---- */
typedef struct bw {
    const sk_skeleton *s;
    const sk_clip *clip;
    const sk_allocator *a;
    double scale;
    uint32_t J;
    dq *W;            /* rest world rotations */
    uint8_t *order;   /* per joint (1..6) */
    uint8_t *pos;     /* per joint: writes position channels */
    uint8_t *endsite; /* per joint: written as its parent's End Site */
    double *angles;   /* per joint: the previous frame's angles */
    double *score;    /* per joint and order: the smallest |cos b| over the frames */
    sk_transform *local;
    double *cs;       /* per joint: its world scale (uniform scales baked into the offsets) */
    uint8_t *noscale; /* per joint: its scale is dropped (drop_scale), taken as 1 */
    uint32_t frames;
    double ft;
    bool resample;
    sk_error *err;
} bw;

static bool ends_with_end(const char *name, const char *parent) {
    size_t n = strlen(name), m = strlen(parent);
    return n == m + 4 && !strncmp(name, parent, m) && !strcmp(name + m, "_end");
}

/* Uniform scales (checked constant by check_scale) go into the world scale of the offsets. */
static void world_scales(bw *w) {
    for (uint32_t j = 0; j < w->J; j++) {
        int32_t par = w->s->parents[j];
        double sj = w->noscale[j] ? 1.0 : (double)w->local[j].s.x;
        w->cs[j] = (par >= 0 ? w->cs[par] : 1.0) * sj;
    }
}

static sk_result sample(bw *w, uint32_t f) {
    memcpy(w->local, w->s->rest, w->J * sizeof(sk_transform));
    if (!w->clip) {
        world_scales(w);
        return SK_OK;
    }
    double t = w->resample ? f * w->ft : (double)(float)(f * w->ft);
    sk_pose p = sk_pose_view(w->local, w->J, NULL, 0);
    sk_result r = sk_clip_sample_tracks(w->clip, w->s, t, SK_LOOP_CLAMP, NULL, 0, &p, w->err);
    if (r != SK_OK) return r;
    for (uint32_t j = 0; j < w->J; j++) {
        const sk_transform *x = &w->local[j];
        if (!sk_isfinite_f(x->t.x) || !sk_isfinite_f(x->t.y) || !sk_isfinite_f(x->t.z) || !sk_isfinite_f(x->r.x) ||
            !sk_isfinite_f(x->r.y) || !sk_isfinite_f(x->r.z) || !sk_isfinite_f(x->r.w))
            return sk_error_set(w->err, SK_ERR_INVALID_ARGUMENT, "bvh write: joint %u is not finite at %g s", j, t);
    }
    world_scales(w);
    return SK_OK;
}

/* Joint j's frame rotation in its world-aligned frame: W_p R_j W_j^-1. */
static void frame_rotation(const bw *w, uint32_t j, double m[3][3]) {
    int32_t p = w->s->parents[j];
    dq wp = p >= 0 ? w->W[p] : (dq){1, 0, 0, 0};
    dq r = dq_mul(dq_mul(wp, dq_norm(dq_of(w->local[j].r))), dq_conj(w->W[j]));
    dq_matrix(dq_norm(r), m);
}

static void frame_translation(const bw *w, uint32_t j, double out[3]) {
    int32_t p = w->s->parents[j];
    double t[3] = {w->local[j].t.x, w->local[j].t.y, w->local[j].t.z};
    if (p >= 0) dq_rotate(w->W[p], t, out);
    else memcpy(out, t, sizeof t);
    double ps = p >= 0 ? w->cs[p] : 1.0;
    for (int k = 0; k < 3; k++) out[k] *= w->scale * ps;
}

/* Frames: the key times when uniform from 0 at one step, else resampled. */
static sk_result plan_frames(bw *w, const sk_bvh_write_options *o, sk_bvh_write_report *rep) {
    w->frames = 1, w->ft = o->frame_time > 0.0 ? o->frame_time : 1.0 / 30.0, w->resample = false;
    if (rep) rep->frames = 1, rep->frame_time = w->ft, rep->resampled = false;
    if (!w->clip) return SK_OK;
    double step = 0.0;
    bool uniform = true;
    float *times = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; uniform && i < sk_clip_track_count(w->clip); i++) {
        sk_track_info ti;
        if (!sk_clip_track_info(w->clip, i, &ti) || ti.key_count < 2) continue;
        if (ti.key_count > cap) {
            float *t2 = sk_realloc_raw(w->a, times, cap * sizeof(float), (size_t)ti.key_count * sizeof(float));
            if (!t2) {
                sk_free(w->a, times, cap * sizeof(float));
                return sk_error_set(w->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            }
            times = t2, cap = ti.key_count;
        }
        sk_clip_track_keys(w->clip, i, times, NULL);
        double d = ((double)times[ti.key_count - 1] - times[0]) / (ti.key_count - 1);
        if (times[0] != 0.0f || !(d > 0.0)) uniform = false;
        for (uint32_t k = 1; uniform && k < ti.key_count; k++)
            if (fabs((double)times[k] - k * d) > 1e-4 * d + 1e-6) uniform = false;
        if (uniform && step > 0.0 && fabs(d - step) > 1e-5 * step) uniform = false;
        if (uniform) step = d;
    }
    sk_free(w->a, times, cap * sizeof(float));
    double dur = sk_clip_duration(w->clip);
    if (!isfinite(dur) || dur < 0.0) return sk_error_set(w->err, SK_ERR_INVALID_ARGUMENT, "bvh write: clip duration %g", dur);
    if (uniform && step > 0.0) {
        w->ft = step;
    } else if (step > 0.0 || dur > 0.0) {
        if (!uniform && o->refuse_resample)
            return sk_error_set(w->err, SK_ERR_UNSUPPORTED,
                                "bvh write: clip '%s' has key times that are not uniform from 0; BVH frames are "
                                "(resample, or allow it)", sk_clip_name(w->clip));
        w->resample = !uniform;
    }
    double nf = floor(dur / w->ft + 1e-6) + 1.0;
    if (nf > SK_BVH_MAX_FRAMES)
        return sk_error_set(w->err, SK_ERR_LIMIT, "bvh write: %.0f frames (at most %u)", nf, SK_BVH_MAX_FRAMES);
    w->frames = (uint32_t)nf;
    if (rep) rep->frames = w->frames, rep->frame_time = w->ft, rep->resampled = w->resample;
    return SK_OK;
}

/* Scale: dropped when about 1, else refused or (drop_scale) dropped. */
static bool uniform3(float x, float y, float z) {
    float m = fmaxf(fabsf(x), fmaxf(fabsf(y), fabsf(z)));
    return x > 0.0f && fabsf(x - y) <= 1e-4f * m && fabsf(x - z) <= 1e-4f * m;
}

/* Scale: a constant uniform scale (rest, or a scale track whose keys are all
 * the same uniform value) is baked into the offsets and positions (joint
 * positions kept); any other is refused, or with drop_scale dropped (taken as
 * 1 for that joint). */
static sk_result check_scale(bw *w, const sk_bvh_write_options *o, sk_bvh_write_report *rep) {
    uint32_t dropped = 0, baked = 0;
    uint8_t *tracked = w->order; /* scratch (cleared by the caller after): joints with a scale track */
    for (uint32_t i = 0; w->clip && i < sk_clip_track_count(w->clip); i++) {
        sk_track_info ti;
        if (!sk_clip_track_info(w->clip, i, &ti) || ti.path != SK_PATH_SCALE || ti.joint >= w->J) continue;
        tracked[ti.joint] = 1;
        size_t n = (size_t)ti.key_count * 3 * (ti.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1);
        float *v = sk_alloc(w->a, n * sizeof(float)), *t = sk_alloc(w->a, (size_t)ti.key_count * sizeof(float));
        if (!v || !t) {
            sk_free(w->a, v, n * sizeof(float)), sk_free(w->a, t, (size_t)ti.key_count * sizeof(float));
            return sk_error_set(w->err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        sk_clip_track_keys(w->clip, i, t, v);
        uint32_t per = ti.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        const float *x0 = v + (per == 3 ? 3 : 0);
        bool constant = uniform3(x0[0], x0[1], x0[2]);
        for (uint32_t k = 0; constant && k < ti.key_count; k++) {
            const float *x = v + ((size_t)k * per + (per == 3 ? 1 : 0)) * 3;
            constant = uniform3(x[0], x[1], x[2]) && fabsf(x[0] - x0[0]) <= 1e-4f * x0[0];
            if (per == 3) /* tangents: none */
                constant = constant && fabsf(v[(size_t)k * 9]) + fabsf(v[(size_t)k * 9 + 6]) <= 1e-6f * x0[0];
        }
        bool one = constant && fabsf(x0[0] - 1.0f) <= 1e-4f;
        sk_free(w->a, v, n * sizeof(float)), sk_free(w->a, t, (size_t)ti.key_count * sizeof(float));
        if (!constant) {
            if (!o->drop_scale)
                return sk_error_set(w->err, SK_ERR_UNSUPPORTED, "bvh write: joint '%s' has scale keys that change or are "
                                    "not uniform; BVH has no scale channels (drop them to write anyway)",
                                    w->s->names[ti.joint]);
            w->noscale[ti.joint] = 1;
            dropped++;
        } else if (!one) {
            baked++;
        }
    }
    for (uint32_t j = 0; j < w->J; j++) {
        if (tracked[j]) continue;
        sk_vec3 sc = w->s->rest[j].s;
        if (uniform3(sc.x, sc.y, sc.z)) {
            baked += fabsf(sc.x - 1.0f) > 1e-4f;
            continue;
        }
        if (!o->drop_scale)
            return sk_error_set(w->err, SK_ERR_UNSUPPORTED, "bvh write: joint '%s' has a rest scale of (%g, %g, %g), not "
                                "uniform; BVH has no scale (drop it to write anyway)", w->s->names[j], sc.x, sc.y, sc.z);
        w->noscale[j] = 1;
        dropped++;
    }
    memset(tracked, 0, w->J);
    if (rep) rep->scale_dropped = dropped, rep->scale_baked = baked;
    return SK_OK;
}

/* The joints in the file's order: depth first from each root in index order
 * (children in index order), end sites left out; returns their count. next
 * and stack: J entries of scratch. */
static uint32_t file_order(const bw *w, uint32_t *seq, uint32_t *first, uint32_t *next, uint32_t *stack) {
    const sk_skeleton *s = w->s;
    uint32_t J = w->J, none = UINT32_MAX, n = 0, sp = 0;
    for (uint32_t j = 0; j < J; j++) first[j] = next[j] = none;
    for (uint32_t j = J; j-- > 0;) { /* prepend in reverse: children end up in index order */
        int32_t p = s->parents[j];
        if (p >= 0) next[j] = first[p], first[p] = j;
    }
    for (uint32_t r = J; r-- > 0;)
        if (s->parents[r] < 0) stack[sp++] = r;
    while (sp) {
        uint32_t j = stack[--sp];
        if (!w->endsite[j]) seq[n++] = j;
        /* children pushed in reverse so the first pops first */
        uint32_t c = first[j], cnt = 0;
        for (; c != none; c = next[c]) cnt++;
        uint32_t base = sp;
        sp += cnt;
        c = first[j];
        for (uint32_t k = 0; k < cnt; k++, c = next[c]) stack[base + cnt - 1 - k] = c;
    }
    return n;
}

static void put_end_site(bw *w, wbuf *b, uint32_t j, uint32_t d) {
    /* the child written as an End Site, else (a leaf) a zero one; none for a joint with joint children */
    const sk_skeleton *s = w->s;
    bool children = false;
    for (uint32_t c = j + 1; c < w->J; c++)
        if (s->parents[c] == (int32_t)j) {
            if (w->endsite[c]) {
                double eo[3];
                sk_transform sv = w->local[c];
                w->local[c] = s->rest[c];
                frame_translation(w, c, eo);
                w->local[c] = sv;
                put(b, "%*sEnd Site\n%*s{\n%*sOFFSET %.9g %.9g %.9g\n%*s}\n", IND(d + 1), "", IND(d + 1), "",
                    IND(d + 2), "", eo[0], eo[1], eo[2], IND(d + 1), "");
                return;
            }
            children = true;
        }
    if (!children)
        put(b, "%*sEnd Site\n%*s{\n%*sOFFSET 0 0 0\n%*s}\n", IND(d + 1), "", IND(d + 1), "",
            IND(d + 2), "", IND(d + 1), "");
}

static void write_hierarchy(bw *w, wbuf *b, const uint32_t *seq, uint32_t n, uint32_t *open) {
    const sk_skeleton *s = w->s;
    static const char xyz[3] = {'X', 'Y', 'Z'};
    uint32_t depth = 0; /* open joints */
    put(b, "HIERARCHY\n");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = seq[i];
        int32_t p = s->parents[j];
        while (depth && (p < 0 || open[depth - 1] != (uint32_t)p)) { /* close what j is not inside */
            depth--;
            put_end_site(w, b, open[depth], depth);
            put(b, "%*s}\n", IND(depth), "");
        }
        uint32_t d = depth;
        double off[3];
        sk_transform save = w->local[j];
        w->local[j] = s->rest[j];
        frame_translation(w, j, off);
        w->local[j] = save;
        put(b, "%*s%s ", IND(d), "", p < 0 ? "ROOT" : "JOINT");
        put_name(b, s->names[j], j);
        put(b, "\n%*s{\n%*sOFFSET %.9g %.9g %.9g\n", IND(d), "", IND(d + 1), "", off[0], off[1], off[2]);
        const int *ax = order_axes[w->order[j]];
        if (w->pos[j])
            put(b, "%*sCHANNELS 6 Xposition Yposition Zposition %crotation %crotation %crotation\n", IND(d + 1), "",
                xyz[ax[0]], xyz[ax[1]], xyz[ax[2]]);
        else
            put(b, "%*sCHANNELS 3 %crotation %crotation %crotation\n", IND(d + 1), "", xyz[ax[0]], xyz[ax[1]],
                xyz[ax[2]]);
        open[depth++] = j;
    }
    while (depth) {
        depth--;
        put_end_site(w, b, open[depth], depth);
        put(b, "%*s}\n", IND(depth), "");
    }
}

sk_result sk_bvh_write_memory(const sk_skeleton *skel, const sk_clip *clip, const sk_bvh_write_options *opts,
                              sk_bvh_write_report *report, char **out, size_t *size, sk_error *err) {
    if (!skel || !out || !size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "bvh write: NULL argument");
    *out = NULL, *size = 0;
    sk_bvh_write_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (report) memset(report, 0, sizeof *report);
    if (!(o.scale == 0.0 || (isfinite(o.scale) && o.scale > 0.0)) ||
        !(o.frame_time == 0.0 || (o.frame_time >= 1e-4 && o.frame_time <= 10.0)) ||
        (unsigned)o.euler > SK_BVH_EULER_ZYX)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "bvh write: scale, frame time or Euler order out of range");
    if (skel->joint_count == 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "bvh write: a skeleton without joints");
    if (clip && sk_clip_joint_span(clip) > skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "bvh write: clip '%s' targets joints the skeleton does not have",
                            sk_clip_name(clip));
    bw w;
    memset(&w, 0, sizeof w);
    w.s = skel, w.clip = clip, w.a = sk_allocator_or_default(&o.allocator), w.err = err;
    w.scale = o.scale > 0.0 ? o.scale : 1.0;
    w.J = skel->joint_count;
    size_t J = w.J;
    w.W = sk_alloc(w.a, J * sizeof(dq));
    w.order = sk_alloc(w.a, J), w.pos = sk_alloc(w.a, J), w.endsite = sk_alloc(w.a, J);
    w.angles = sk_alloc(w.a, J * 3 * sizeof(double));
    w.score = sk_alloc(w.a, J * 7 * sizeof(double));
    w.local = sk_alloc(w.a, J * sizeof(sk_transform));
    w.cs = sk_alloc(w.a, J * sizeof(double));
    w.noscale = sk_alloc(w.a, J);
    uint32_t *seq = sk_alloc(w.a, J * 4 * sizeof(uint32_t)), nseq = 0; /* seq, first, next, stack */
    wbuf b = {w.a, NULL, 0, 0, false};
    sk_result r = SK_OK;
    if (!w.W || !w.order || !w.pos || !w.endsite || !w.angles || !w.score || !w.local || !seq || !w.cs || !w.noscale)
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    if (r == SK_OK) r = check_scale(&w, &o, report);
    if (r == SK_OK) r = plan_frames(&w, &o, report);
    if (r == SK_OK) {
        /* w.order as scratch: bit 0 = has children, bit 1 = has an end site already */
        for (uint32_t j = 0; j < w.J; j++)
            if (skel->parents[j] >= 0) w.order[skel->parents[j]] |= 1;
        for (uint32_t j = 0; j < w.J; j++) {
            int32_t p = skel->parents[j];
            dq rj = dq_norm(dq_of(skel->rest[j].r));
            w.W[j] = p >= 0 ? dq_norm(dq_mul(w.W[p], rj)) : rj;
            w.pos[j] = p < 0;
            w.endsite[j] = p >= 0 && !(w.order[j] & 1) && !(w.order[p] & 2) && skel->names[j] && skel->names[p] &&
                           ends_with_end(skel->names[j], skel->names[p]);
            if (w.endsite[j]) w.order[p] |= 2;
            for (int k = 1; k <= 6; k++) w.score[j * 7 + k] = 1.0;
        }
        memset(w.order, 0, J);
        for (uint32_t i = 0; clip && i < sk_clip_track_count(clip); i++) {
            sk_track_info ti;
            if (sk_clip_track_info(clip, i, &ti) && ti.path == SK_PATH_TRANSLATION && ti.joint < w.J) {
                w.pos[ti.joint] = 1;
                w.endsite[ti.joint] = 0; /* an animated end site is a joint */
            }
        }
    }
    /* pass 1: each joint's order */
    for (uint32_t f = 0; r == SK_OK && f < w.frames && o.euler == SK_BVH_EULER_AUTO; f++) {
        r = sample(&w, f);
        for (uint32_t j = 0; r == SK_OK && j < w.J; j++) {
            double m[3][3];
            frame_rotation(&w, j, m);
            for (int k = 1; k <= 6; k++) {
                int i0 = order_axes[k][0], k0 = order_axes[k][2];
                double c = sqrt(fmax(0.0, 1.0 - m[i0][k0] * m[i0][k0])); /* |cos b| */
                if (c < w.score[j * 7 + k]) w.score[j * 7 + k] = c;
            }
        }
    }
    for (uint32_t j = 0; r == SK_OK && j < w.J; j++) {
        int best = o.euler != SK_BVH_EULER_AUTO ? (int)o.euler : SK_BVH_EULER_ZXY; /* the usual capture order first */
        if (o.euler == SK_BVH_EULER_AUTO)
            for (int k = 1; k <= 6; k++)
                if (w.score[j * 7 + k] > w.score[j * 7 + best] + 1e-9) best = k;
        w.order[j] = (uint8_t)best;
        if (report && !w.endsite[j]) report->euler_counts[best]++;
    }
    /* pass 2: the text */
    if (r == SK_OK) {
        nseq = file_order(&w, seq, seq + J, seq + 2 * J, seq + 3 * J);
        r = sample(&w, 0);
        if (r == SK_OK) {
            write_hierarchy(&w, &b, seq, nseq, seq + J);
            put(&b, "MOTION\nFrames: %u\nFrame Time: %.9g\n", w.frames, w.ft);
        }
    }
    for (uint32_t f = 0; r == SK_OK && f < w.frames; f++) {
        if (f) r = sample(&w, f);
        for (uint32_t i = 0; r == SK_OK && i < nseq; i++) {
            uint32_t j = seq[i];
            if (w.pos[j]) {
                double t[3];
                frame_translation(&w, j, t);
                put(&b, "%.9g %.9g %.9g ", t[0], t[1], t[2]);
            }
            double m[3][3], e[3];
            frame_rotation(&w, j, m);
            euler_of(m, w.order[j], e);
            if (f) unwrap(e, &w.angles[3 * j]);
            memcpy(&w.angles[3 * j], e, sizeof e);
            put(&b, "%.9g %.9g %.9g ", e[0] * (180.0 / BW_PI), e[1] * (180.0 / BW_PI), e[2] * (180.0 / BW_PI));
        }
        if (b.len && b.p[b.len - 1] == ' ') b.len--;
        put(&b, "\n");
    }
    if (r == SK_OK && b.oom) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    if (r == SK_OK) {
        *out = b.p, *size = b.len;
        b.p = NULL;
    }
    sk_free(w.a, b.p, b.cap);
    sk_free(w.a, w.W, J * sizeof(dq));
    sk_free(w.a, w.order, J), sk_free(w.a, w.pos, J), sk_free(w.a, w.endsite, J);
    sk_free(w.a, w.angles, J * 3 * sizeof(double));
    sk_free(w.a, w.score, J * 7 * sizeof(double));
    sk_free(w.a, w.local, J * sizeof(sk_transform));
    sk_free(w.a, w.cs, J * sizeof(double));
    sk_free(w.a, w.noscale, J);
    sk_free(w.a, seq, J * 4 * sizeof(uint32_t));
    if (r == SK_OK && *out && b.cap != b.len) { /* hand back exactly size bytes */
        char *q = sk_realloc_raw(w.a, *out, b.cap, b.len ? b.len : 1);
        if (q) *out = q;
        else {
            sk_free(w.a, *out, b.cap);
            *out = NULL, *size = 0;
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    return r;
}

sk_result sk_bvh_write_file(const char *path, const sk_skeleton *skel, const sk_clip *clip,
                            const sk_bvh_write_options *opts, sk_bvh_write_report *report, sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "bvh write: path is NULL");
    char *text = NULL;
    size_t size = 0;
    sk_error e = {0};
    sk_result r = sk_bvh_write_memory(skel, clip, opts, report, &text, &size, &e);
    if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
    const sk_allocator *a = sk_allocator_or_default(opts ? &opts->allocator : NULL);
    r = sk_file_write(opts ? &opts->file_io : NULL, path, text, size, err);
    sk_free(a, text, size ? size : 1);
    return r;
}
