/* skelanim command-line tool: the locomotion debugging view — the frame's
 * data from a locomotor or a trace line, and its scene part (loco_overlay.h;
 * the HUD is loco_overlay_hud.c). */
#include "loco_overlay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const loco_overlay_toggles loco_overlay_all = {true, true, true, true};

#define TRAIL_MAX 8192u

struct loco_overlay {
    skr_overlay *gl;
    float *path;                /* draped path, xyz */
    uint32_t path_n;
    float *trail;               /* TRAIL_MAX xyz, oldest first */
    uint32_t trail_n;
    unsigned char *hud;         /* LOCO_HUD_W x hud_h BGRA */
    int hud_h;
    const sk_terrain *terrain; /* loco_overlay_set_path's, or NULL */
};

void loco_overlay_leg_rgb(uint32_t l, float rgb[3]) {
    static const unsigned char c[6][3] = {{230, 38, 191}, {26, 140, 255}, {255, 200, 0},
                                          {0, 200, 120},  {150, 90, 255}, {255, 110, 40}};
    for (int k = 0; k < 3; k++) rgb[k] = c[l % 6][k] / 255.0f;
}

static float wrap01(float x) {
    float w = x - floorf(x);
    return w >= 1.0f ? 0.0f : w;
}

static loco_overlay_step step_of(const sk_footstep *s, sk_vec3 foot_dir) {
    loco_overlay_step o;
    o.heel = s->position;
    o.toe = sk_vec3_add(s->position, sk_quat_rotate(s->rotation, foot_dir));
    o.normal = s->normal;
    return o;
}

bool loco_overlay_gather(loco_overlay_frame *out, const sk_locomotor *L, const sk_motion_group *g,
                         const char *const *clip_names, const char *const *leg_names, double t) {
    if (!L || !g || !out) return false;
    const sk_locomotor_state *st = sk_locomotor_get_state(L);
    memset(out, 0, sizeof *out);
    out->t = t;
    out->root = st->position;
    out->velocity = st->velocity;
    out->yaw = st->yaw;
    out->mode = st->mode;
    out->phase = st->phase;
    out->moving = st->moving;
    uint32_t n = sk_motion_group_count(g);
    const float *w = sk_locomotor_weights(L);
    out->clip_count = n < LOCO_OVERLAY_MAX_CLIPS ? n : LOCO_OVERLAY_MAX_CLIPS;
    for (uint32_t i = 0; i < out->clip_count; i++) {
        if (clip_names && clip_names[i]) snprintf(out->clip[i], LOCO_OVERLAY_NAME, "%s", clip_names[i]);
        else snprintf(out->clip[i], LOCO_OVERLAY_NAME, "motion %u", i);
        out->weight[i] = w ? w[i] : 0.0f;
    }
    sk_motion_blend b;
    memset(&b, 0, sizeof b);
    bool have_blend = w && sk_motion_group_blend(g, w, n, &b, NULL) == SK_OK;
    out->leg_count = st->leg_count < LOCO_OVERLAY_MAX_LEGS ? st->leg_count : LOCO_OVERLAY_MAX_LEGS;
    for (uint32_t l = 0; l < out->leg_count; l++) {
        const sk_locomotor_foot *ft = &st->feet[l];
        loco_overlay_leg *o = &out->legs[l];
        if (leg_names && leg_names[l]) snprintf(o->name, LOCO_OVERLAY_NAME, "%s", leg_names[l]);
        else snprintf(o->name, LOCO_OVERLAY_NAME, "leg %u", l);
        o->heel = ft->heel, o->toe = ft->toe;
        o->stance = ft->stance, o->grounded = ft->grounded;
        o->cycle_time = ft->cycle_time, o->flight = ft->flight;
        if (have_blend && l < b.leg_count) {
            const sk_leg_blend *lb = &b.legs[l];
            /* As the locomotor reads them: in the leg's cycle, from its stance time. */
            o->lift = wrap01(lb->foot_lift - lb->stance_time);
            o->off = wrap01(lb->foot_off - lb->stance_time);
            o->strike = wrap01(lb->foot_strike - lb->stance_time);
            o->land = wrap01(lb->foot_land - lb->stance_time);
            if (o->land < o->strike) o->land = o->strike;
            if (o->off < o->lift) o->off = o->lift;
        }
        o->from = step_of(&ft->from, ft->foot); /* the foot as the locomotor lays it (its footsteps' length) */
        o->to = step_of(&ft->to, ft->foot);
    }
    return true;
}

/* ---- Drawing ---- */

loco_overlay *loco_overlay_create(sk_error *err) {
    loco_overlay *ov = calloc(1, sizeof *ov);
    if (!ov || !(ov->trail = malloc(TRAIL_MAX * 3 * sizeof(float)))) {
        free(ov);
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (skr_overlay_create(&ov->gl, err) != SK_OK) {
        loco_overlay_destroy(ov);
        return NULL;
    }
    return ov;
}

void loco_overlay_destroy(loco_overlay *ov) {
    if (!ov) return;
    skr_overlay_destroy(ov->gl);
    free(ov->path), free(ov->trail), free(ov->hud);
    free(ov);
}

static float ground_y(const sk_terrain *terrain, float x, float z, float guess) {
    sk_terrain_hit h;
    if (terrain && terrain->raycast && sk_terrain_height(terrain, x, z, guess + 50.0f, 100.0f, &h)) return h.point.y;
    return guess;
}

bool loco_overlay_set_path(loco_overlay *ov, const float *xz, uint32_t count, const sk_terrain *terrain) {
    free(ov->path);
    ov->path = NULL, ov->path_n = 0;
    ov->terrain = terrain;
    if (count < 2) return true;
    uint32_t n = 1;
    for (uint32_t i = 1; i < count; i++) {
        float len = hypotf(xz[2 * i] - xz[2 * i - 2], xz[2 * i + 1] - xz[2 * i - 1]);
        if (!(len < 1e4f)) return false; /* absurd or non-finite: the caller checked the path */
        n += (uint32_t)ceilf(len / 0.05f) + 1;
    }
    if (!(ov->path = malloc((size_t)n * 3 * sizeof(float)))) return false;
    float y = 0;
    for (uint32_t i = 1; i < count; i++) {
        float x0 = xz[2 * i - 2], z0 = xz[2 * i - 1], x1 = xz[2 * i], z1 = xz[2 * i + 1];
        uint32_t m = (uint32_t)ceilf(hypotf(x1 - x0, z1 - z0) / 0.05f);
        if (!m) m = 1;
        for (uint32_t k = i == 1 ? 0 : 1; k <= m; k++) {
            float u = (float)k / (float)m, x = x0 + u * (x1 - x0), z = z0 + u * (z1 - z0);
            y = terrain ? ground_y(terrain, x, z, y) : 0.0f;
            float *p = ov->path + 3 * ov->path_n++;
            p[0] = x, p[1] = y + 0.02f, p[2] = z;
        }
    }
    return true;
}

void loco_overlay_trail_clear(loco_overlay *ov) { ov->trail_n = 0; }

void loco_overlay_trail_add(loco_overlay *ov, sk_vec3 p) {
    if (ov->trail_n == TRAIL_MAX) {
        memmove(ov->trail, ov->trail + 3 * (TRAIL_MAX / 2), (TRAIL_MAX / 2) * 3 * sizeof(float));
        ov->trail_n = TRAIL_MAX / 2;
    }
    float *q = ov->trail + 3 * ov->trail_n++;
    q[0] = p.x, q[1] = ground_y(ov->terrain, p.x, p.z, p.y) + 0.025f, q[2] = p.z;
}

static void put3(float *q, sk_vec3 v) { q[0] = v.x, q[1] = v.y, q[2] = v.z; }

/* A footstep as a sole: heel rounded, wider toward the toe, lifted 1.5 cm
 * along the normal. 24 points. */
#define SOLE_N 24
static void sole(const loco_overlay_step *s, float out[SOLE_N * 3]) {
    sk_vec3 f = sk_vec3_sub(s->toe, s->heel);
    float len = sk_vec3_length(f);
    sk_vec3 n = sk_vec3_length(s->normal) > 0.5f ? sk_vec3_normalize(s->normal) : sk_vec3_make(0, 1, 0);
    sk_vec3 side = sk_vec3_normalize(sk_vec3_cross(n, f));
    if (len < 1e-3f) len = 0.24f, side = sk_vec3_make(1, 0, 0), f = sk_vec3_make(0, 0, len);
    sk_vec3 base = sk_vec3_add(s->heel, sk_vec3_scale(n, 0.015f));
    for (int i = 0; i < SOLE_N; i++) {
        float a = 2.0f * 3.14159265f * (float)i / SOLE_N;
        float u = 0.5f - 0.5f * cosf(a), v = sinf(a) * (0.14f + 0.08f * u) * len;
        put3(out + 3 * i, sk_vec3_add(base, sk_vec3_add(sk_vec3_scale(f, u), sk_vec3_scale(side, v))));
    }
}

static void closed_outline(loco_overlay *ov, const skr_camera *cam, const float *pts, uint32_t n,
                           const skr_overlay_style *st) {
    float q[(SOLE_N + 1) * 3];
    memcpy(q, pts, n * 3 * sizeof(float));
    memcpy(q + 3 * n, pts, 3 * sizeof(float));
    skr_overlay_lines(ov->gl, cam, q, n + 1, true, st);
}

static void draw_scene(loco_overlay *ov, const skr_camera *cam, const loco_overlay_frame *f, loco_overlay_toggles t) {
    if (t.path) { /* solid where seen, faint where the ground or the body hides it */
        skr_overlay_style sp = {{0.16f, 0.22f, 0.55f, 1.0f}, 2.0f, true}, st = {{0.95f, 0.95f, 0.98f, 1.0f}, 2.5f, true};
        for (int pass = 0; pass < 2; pass++) {
            if (ov->path_n >= 2) skr_overlay_lines(ov->gl, cam, ov->path, ov->path_n, true, &sp);
            if (ov->trail_n >= 2) skr_overlay_lines(ov->gl, cam, ov->trail, ov->trail_n, true, &st);
            sp.depth_test = st.depth_test = false, sp.rgba[3] = st.rgba[3] = 0.3f;
        }
    }
    if (!t.footsteps) return;
    /* The feet's states: a ring around each foot. */
    for (uint32_t l = 0; l < f->leg_count; l++) {
        const loco_overlay_leg *o = &f->legs[l];
        sk_vec3 c = sk_vec3_scale(sk_vec3_add(o->heel, o->toe), 0.5f);
        float ring[17 * 3];
        for (int i = 0; i <= 16; i++) {
            float a = 2.0f * 3.14159265f * (float)i / 16.0f;
            put3(ring + 3 * i, sk_vec3_add(c, sk_vec3_make(0.09f * cosf(a), 0.0f, 0.09f * sinf(a))));
        }
        skr_overlay_style sr = {{0.15f, 0.8f, 0.2f, 1.0f}, 2.0f, false};
        if (!o->stance && o->grounded) sr.rgba[0] = 0.95f, sr.rgba[1] = 0.8f, sr.rgba[2] = 0.1f;
        else if (!o->grounded) sr.rgba[0] = 0.9f, sr.rgba[1] = 0.15f, sr.rgba[2] = 0.1f;
        skr_overlay_lines(ov->gl, cam, ring, 17, true, &sr);
    }
    /* The velocity: 0.5 s of travel from the ground point. */
    sk_vec3 v = sk_vec3_make(f->velocity.x, 0, f->velocity.z);
    float speed = sk_vec3_length(v);
    if (speed > 0.02f) {
        float gy = ground_y(ov->terrain, f->root.x, f->root.z, f->root.y) + 0.04f;
        sk_vec3 a = sk_vec3_make(f->root.x, gy, f->root.z), b = sk_vec3_add(a, sk_vec3_scale(v, 0.5f));
        sk_vec3 d = sk_vec3_scale(v, 1.0f / speed), s = sk_vec3_make(-d.z, 0, d.x);
        float head = fminf(0.12f, 0.35f * 0.5f * speed);
        sk_vec3 back = sk_vec3_sub(b, sk_vec3_scale(d, head));
        float seg[18];
        put3(seg, a), put3(seg + 3, b);
        put3(seg + 6, b), put3(seg + 9, sk_vec3_add(back, sk_vec3_scale(s, 0.6f * head)));
        put3(seg + 12, b), put3(seg + 15, sk_vec3_sub(back, sk_vec3_scale(s, 0.6f * head)));
        skr_overlay_style sv = {{1.0f, 0.5f, 0.0f, 1.0f}, 3.0f, false};
        skr_overlay_lines(ov->gl, cam, seg, 6, false, &sv);
    }
    /* The footsteps: the next one (lighter) first, then the one the foot
     * stands on or left. The locomotor's `from` is the footstep left and
     * `to` the one flown to until the leg's cycle wraps at its stance time;
     * from landing to then the foot stands on `to`: on the ground, the one
     * nearer the heel is the current one, and there is no next one yet. */
    const loco_overlay_step *cur[LOCO_OVERLAY_MAX_LEGS], *next[LOCO_OVERLAY_MAX_LEGS];
    for (uint32_t l = 0; l < f->leg_count; l++) {
        const loco_overlay_leg *o = &f->legs[l];
        bool on_to = o->grounded && sk_vec3_length(sk_vec3_sub(o->heel, o->to.heel)) <
                                        sk_vec3_length(sk_vec3_sub(o->heel, o->from.heel));
        cur[l] = on_to ? &o->to : &o->from;
        next[l] = on_to ? NULL : &o->to;
    }
    for (uint32_t l = 0; l < f->leg_count; l++) {
        float rgb[3], pts[SOLE_N * 3];
        if (!next[l]) continue;
        loco_overlay_leg_rgb(l, rgb);
        skr_overlay_style to = {{0, 0, 0, 1.0f}, 2.0f, false};
        for (int k = 0; k < 3; k++) to.rgba[k] = rgb[k] + 0.55f * (1.0f - rgb[k]);
        sole(next[l], pts);
        closed_outline(ov, cam, pts, SOLE_N, &to);
    }
    for (uint32_t l = 0; l < f->leg_count; l++) {
        float rgb[3], pts[SOLE_N * 3];
        loco_overlay_leg_rgb(l, rgb);
        sole(cur[l], pts);
        if (f->legs[l].stance) {
            skr_overlay_style fill = {{rgb[0], rgb[1], rgb[2], 0.45f}, 0, true};
            skr_overlay_polygon(ov->gl, cam, pts, SOLE_N, &fill);
        }
        skr_overlay_style from = {{rgb[0], rgb[1], rgb[2], 1.0f}, 3.0f, false};
        closed_outline(ov, cam, pts, SOLE_N, &from);
    }
}

void loco_overlay_draw(loco_overlay *ov, const skr_camera *cam, const loco_overlay_frame *f, loco_overlay_toggles t,
                       int fb_w, int fb_h) {
    if (!ov || !f) return;
    draw_scene(ov, cam, f, t);
    int h = loco_overlay_hud_height(f, t);
    if (h <= 0) return;
    if (h != ov->hud_h) {
        unsigned char *p = realloc(ov->hud, (size_t)LOCO_HUD_W * 4 * (size_t)h);
        if (!p) return;
        ov->hud = p, ov->hud_h = h;
    }
    loco_overlay_hud(f, t, ov->hud);
    skr_overlay_image(ov->gl, ov->hud, LOCO_HUD_W, h, LOCO_HUD_X, LOCO_HUD_Y, fb_w, fb_h);
}
