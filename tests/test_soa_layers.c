/* Masks, channel sets, slerp, additive poses and the layer stack on
 * structure-of-arrays poses (anim/soa_layers.h): every function against its
 * sk_pose counterpart (blend.h, layers.h), bit for bit, as soa_layers.h
 * promises; both kernel widths (four and eight floats, two and four
 * doubles); outputs aliasing inputs; masks with 0, 1, fractions, values
 * above one, negative and NaN entries; rotations more than 120 degrees
 * apart (the slerp's scalar lanes); the mannequin's clips with an
 * upper-body mask and an additive layer; errors. */
#include "support.h"
#include "anim/soa_layers_internal.h"
#include "core/internal.h"
#include "core/soa_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int widths(void) { return sk_soa_use_avx2() ? 2 : 1; }


/* Random pose; near (if given): rotations within a few degrees of it on
 * every third joint (the slerp series), the others anywhere (more than 120
 * degrees apart on many: the scalar lanes), some on the other hemisphere. */
static void rnd_pose(uint32_t n, uint32_t *seed, const sk_transform *near, sk_transform *p) {
    for (uint32_t j = 0; j < n; j++) {
        p[j].t = sk_vec3_make(sk_test_rnd(seed), sk_test_rnd(seed), sk_test_rnd(seed));
        p[j].r = sk_test_rnd_quat(seed);
        if (near && j % 3 == 0) {
            sk_quat q = near[j].r;
            p[j].r = sk_quat_normalize(sk_quat_make(q.x + 0.03f * sk_test_rnd(seed), q.y, q.z + 0.02f * sk_test_rnd(seed), q.w));
        }
        if (j % 4 == 1) p[j].r = sk_quat_make(-p[j].r.x, -p[j].r.y, -p[j].r.z, -p[j].r.w);
        p[j].s = sk_vec3_make(1 + 0.4f * sk_test_rnd(seed), 1 + 0.2f * sk_test_rnd(seed), j % 7 == 3 ? 0.0f : 1.0f);
    }
}

static sk_soa_pose soa_of(const sk_skeleton *s, const sk_transform *p) {
    sk_soa_pose out;
    sk_error err = {0};
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &out, &err), SK_OK);
    if (p) assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, (sk_transform *)p, NULL), &out, &err), SK_OK);
    return out;
}


/* Masks: kind 0 NULL, 1 zeros and ones, 2 fractions, 3 everything (above
 * one, negative, NaN), 4 fractions with every other group of eight joints
 * all 0 (a subtree masked out: the additive kernels skip such groups). */
static const float *make_mask(uint32_t n, int kind, uint32_t *seed, float *m) {
    if (kind == 0) return NULL;
    for (uint32_t j = 0; j < n; j++) {
        float r = sk_test_rnd(seed);
        m[j] = kind == 1 ? (r > 0 ? 1.0f : 0.0f) : 0.5f + 0.5f * r;
        if (kind == 3 && j % 6 == 2) m[j] = 1.7f;
        if (kind == 3 && j % 6 == 4) m[j] = -0.3f;
        if (kind == 3 && j % 11 == 5) m[j] = NAN;
        if (kind == 4 && j / 8 % 2 == 1) m[j] = 0.0f;
    }
    return m;
}

static const uint32_t sizes[] = {1, 8, 13, 30, 45};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* sk_blend_two with a mask, nlerp and slerp. */
static void test_two_masked(void **st) {
    (void)st;
    uint32_t checks = 0, per_joint = 0;
    const float ts[] = {0.0f, 0.3f, 1.0f, -0.25f, 1.5f, 0.71f};
    for (size_t k = 0; k < NSIZES; k++) {
        uint32_t n = sizes[k], seed = 31 * n + 1;
        sk_skeleton *s = sk_test_chain_skeleton(n, 5);
        sk_error err = {0};
        sk_transform *pa = calloc(n, sizeof *pa), *pb = calloc(n, sizeof *pb), *po = calloc(n, sizeof *po);
        sk_transform *ref = calloc(n, sizeof *ref), *alias = calloc(n, sizeof *alias);
        float *mbuf = calloc(n, sizeof *mbuf);
        rnd_pose(n, &seed, NULL, pa);
        rnd_pose(n, &seed, pa, pb);
        if (n > 20) pa[7].r = sk_quat_make(0, 0, 0, 0), pb[7].r = sk_quat_make(0, 0, 0, 0);
        sk_soa_pose sa = soa_of(s, pa), sb = soa_of(s, pb), so = soa_of(s, NULL);
        for (int mk = 0; mk < 4; mk++) {
            const float *mask = make_mask(n, mk, &seed, mbuf);
            for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++)
                for (int slerp = 0; slerp < 2; slerp++) {
                    sk_pose out = sk_pose_view(po, n, NULL, 0);
                    assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), SK_POSE_OF(s, pb, NULL), ts[ti], mask,
                                                  slerp, &out, &err), SK_OK);
                    /* its definition per joint (blend.h), by the public per-joint functions; out = a, b */
                    for (uint32_t j = 0; j < n; j++) {
                        float u = mask ? ts[ti] * mask[j] : ts[ti];
                        ref[j] = pa[j];
                        if (u == 0.0f) continue;
                        ref[j].t = sk_vec3_lerp(pa[j].t, pb[j].t, u), ref[j].s = sk_vec3_lerp(pa[j].s, pb[j].s, u);
                        ref[j].r = slerp ? sk_quat_slerp(pa[j].r, pb[j].r, u) : sk_quat_nlerp(pa[j].r, pb[j].r, u);
                    }
                    assert_memory_equal(po, ref, n * sizeof *ref);
                    memcpy(alias, pa, n * sizeof *alias);
                    sk_pose al = sk_pose_view(alias, n, NULL, 0);
                    assert_int_equal(sk_blend_two(s, &al, SK_POSE_OF(s, pb, NULL), ts[ti], mask, slerp, &al, &err), SK_OK);
                    assert_memory_equal(alias, ref, n * sizeof *ref);
                    memcpy(alias, pb, n * sizeof *alias);
                    assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), &al, ts[ti], mask, slerp, &al, &err), SK_OK);
                    assert_memory_equal(alias, ref, n * sizeof *ref);
                    per_joint += n;
                    char what[96];
                    snprintf(what, sizeof what, "two, %u joints, mask %d, t %g, slerp %d", n, mk, (double)ts[ti], slerp);
                    assert_int_equal(sk_blend_two_masked_soa(s, &sa, &sb, ts[ti], mask, slerp, &so, &err), SK_OK);
                    sk_test_assert_soa_equal(s, &so, po, what);
                    for (int wide = 0; wide < widths(); wide++) {
                        memset(so.data, 0, so.group_count * 80 * sizeof(float));
                        ska_blend_two_masked_soa(s, &sa, &sb, ts[ti], mask, slerp, &so, wide);
                        sk_test_assert_soa_equal(s, &so, po, what);
                        checks++;
                    }
                    /* out aliasing a, then b */
                    sk_soa_pose ca = soa_of(s, pa), cb = soa_of(s, pb);
                    assert_int_equal(sk_blend_two_masked_soa(s, &ca, &sb, ts[ti], mask, slerp, &ca, &err), SK_OK);
                    sk_test_assert_soa_equal(s, &ca, po, "two, out = a");
                    assert_int_equal(sk_blend_two_masked_soa(s, &sa, &cb, ts[ti], mask, slerp, &cb, &err), SK_OK);
                    sk_test_assert_soa_equal(s, &cb, po, "two, out = b");
                    sk_soa_pose_free(&ca, NULL), sk_soa_pose_free(&cb, NULL);
                }
        }
        sk_soa_pose_free(&sa, NULL), sk_soa_pose_free(&sb, NULL), sk_soa_pose_free(&so, NULL);
        free(pa), free(pb), free(po), free(mbuf), free(ref), free(alias);
        sk_skeleton_destroy(s);
    }
    printf("sk_blend_two with masks and slerp against its per-joint definition: %u joints, bit for bit\n", per_joint);
    assert_int_equal(per_joint, 4 * 6 * 2 * (1 + 8 + 13 + 30 + 45));
    assert_int_equal(checks, NSIZES * 4 * 6 * 2 * (uint32_t)widths());
}

/* sk_blend_poses with masks and channel sets, nlerp and slerp, rest fill
 * on and off. */
static void test_poses_masked(void **st) {
    (void)st;
    enum { L = 4 };
    uint32_t checks = 0;
    const float wsets[][L] = {{0.5f, 0.3f, 0.2f, 0.0f}, {0.2f, 0.1f, 0.0f, 0.3f}, {1.0f, 0.7f, 0.4f, 0.9f},
                              {0.0f, -1.0f, 0.6f, NAN},  {0.0f, 0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    enum { NW = sizeof wsets / sizeof wsets[0] };
    for (size_t k = 0; k < NSIZES; k++) {
        uint32_t n = sizes[k], seed = 7 * n + 3;
        sk_skeleton *s = sk_test_chain_skeleton(n, 5);
        sk_error err = {0};
        sk_transform *p[L], *po = calloc(n, sizeof *po);
        sk_soa_pose sp[L], so = soa_of(s, NULL);
        float *mb[L];
        uint8_t *chb[L];
        for (int i = 0; i < L; i++) {
            p[i] = calloc(n, sizeof *p[i]);
            rnd_pose(n, &seed, i ? p[0] : NULL, p[i]);
            sp[i] = soa_of(s, p[i]);
            mb[i] = calloc(n, sizeof *mb[i]);
            chb[i] = calloc(n, 1);
            for (uint32_t j = 0; j < n; j++) chb[i][j] = (uint8_t)((j * 5 + (uint32_t)i * 3) % 16);
            if (n > 20) { /* joint 7: nothing to normalise (the identity); joint 11: a NaN rotation first */
                p[i][7].r = sk_quat_make(0, 0, 0, 0);
                if (i == 0) p[i][11].r = sk_quat_make(NAN, 0, 0, 1);
                assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, p[i], NULL), &sp[i], &err), SK_OK);
            }
        }
        for (size_t ws = 0; ws < NW; ws++)
            for (int variant = 0; variant < 3; variant++) /* 0: no masks, 1: masks, 2: masks and channel sets */
                for (int rot = 0; rot < 2; rot++)
                    for (int fill = 0; fill < 2; fill++) {
                        sk_pose views[L];
                        sk_blend_input in[L];
                        sk_soa_blend_input sin[L];
                        for (int i = 0; i < L; i++) {
                            const float *mask = variant ? make_mask(n, (i + (int)ws) % 4, &seed, mb[i]) : NULL;
                            const uint8_t *ch = variant == 2 && i != 1 ? chb[i] : NULL;
                            views[i] = sk_pose_view(p[i], n, NULL, 0);
                            in[i] = (sk_blend_input){&views[i], wsets[ws][i], mask, ch};
                            sin[i] = (sk_soa_blend_input){&sp[i], wsets[ws][i], mask, ch};
                        }
                        sk_blend_options o = {rot ? SK_BLEND_SLERP : SK_BLEND_NLERP, !fill};
                        sk_pose out = sk_pose_view(po, n, NULL, 0);
                        assert_int_equal(sk_blend_poses(s, in, L, &o, &out, &err), SK_OK);
                        char what[96];
                        snprintf(what, sizeof what, "poses, %u joints, weights %zu, variant %d, slerp %d, fill %d", n,
                                 ws, variant, rot, fill);
                        assert_int_equal(sk_blend_poses_soa(s, sin, L, &o, &so, &err), SK_OK);
                        sk_test_assert_soa_equal(s, &so, po, what);
                        for (int wide = 0; wide < widths(); wide++) {
                            memset(so.data, 0, so.group_count * 80 * sizeof(float));
                            ska_blend_poses_soa(s, sin, L, rot, fill, &so, wide);
                            sk_test_assert_soa_equal(s, &so, po, what);
                            checks++;
                        }
                        /* out aliasing the last input */
                        sk_soa_pose alias = soa_of(s, p[L - 1]);
                        sin[L - 1].pose = &alias;
                        assert_int_equal(sk_blend_poses_soa(s, sin, L, &o, &alias, &err), SK_OK);
                        sk_test_assert_soa_equal(s, &alias, po, "poses, out = an input");
                        sk_soa_pose_free(&alias, NULL);
                    }
        for (int i = 0; i < L; i++) {
            free(p[i]), free(mb[i]), free(chb[i]);
            sk_soa_pose_free(&sp[i], NULL);
        }
        sk_soa_pose_free(&so, NULL);
        free(po);
        sk_skeleton_destroy(s);
    }
    assert_int_equal(checks, NSIZES * NW * 3 * 2 * 2 * (uint32_t)widths());
}

/* sk_pose_make_additive and sk_pose_apply_additive. */
static void test_additive(void **st) {
    (void)st;
    uint32_t checks = 0, per_joint = 0;
    const float ws[] = {0.0f, 0.4f, 1.0f, 1.7f, -0.5f};
    for (size_t k = 0; k < NSIZES; k++) {
        uint32_t n = sizes[k], seed = 13 * n + 5;
        sk_skeleton *s = sk_test_chain_skeleton(n, 5);
        sk_error err = {0};
        sk_transform *pp = calloc(n, sizeof *pp), *pr = calloc(n, sizeof *pr), *pd = calloc(n, sizeof *pd);
        sk_transform *base = calloc(n, sizeof *base), *io = calloc(n, sizeof *io);
        float *mbuf = calloc(n, sizeof *mbuf);
        rnd_pose(n, &seed, NULL, pr);
        rnd_pose(n, &seed, pr, pp);
        rnd_pose(n, &seed, NULL, base);
        if (n > 20) pr[9].r = sk_quat_make(0, 0, 0, 0), pp[12].r = sk_quat_make(0, 0, 0, 0); /* identity fallbacks */
        sk_soa_pose sp = soa_of(s, pp), sr = soa_of(s, pr), sd = soa_of(s, NULL);
        assert_int_equal(sk_pose_make_additive(s, SK_POSE_OF(s, pp, NULL), SK_POSE_OF(s, pr, NULL),
                                               SK_POSE_OF(s, pd, NULL), &err), SK_OK);
        assert_int_equal(sk_pose_make_additive_soa(s, &sp, &sr, &sd, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sd, pd, "make additive");
        for (int wide = 0; wide < widths(); wide++) {
            memset(sd.data, 0, sd.group_count * 80 * sizeof(float));
            ska_make_additive_soa(s, &sp, &sr, &sd, wide);
            sk_test_assert_soa_equal(s, &sd, pd, "make additive, width");
            checks++;
        }
        sk_soa_pose alias = soa_of(s, pp); /* out = pose */
        assert_int_equal(sk_pose_make_additive_soa(s, &alias, &sr, &alias, &err), SK_OK);
        sk_test_assert_soa_equal(s, &alias, pd, "make additive, out = pose");
        sk_soa_pose_free(&alias, NULL);
        for (int mk = 0; mk < 5; mk++) {
            const float *mask = make_mask(n, mk, &seed, mbuf);
            for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++)
                for (int nl = 0; nl < 2; nl++) { /* sk_pose_apply_additive, then its nlerp form */
                    memcpy(io, base, n * sizeof *io);
                    assert_int_equal((nl ? sk_pose_apply_additive_nlerp : sk_pose_apply_additive)(
                                         s, SK_POSE_OF(s, io, NULL), SK_POSE_OF(s, pd, NULL), ws[wi], mask, &err),
                                     SK_OK);
                    /* its definition per joint (layers.h), by the public per-joint functions */
                    for (uint32_t j = 0; j < n; j++) {
                        float w = mask ? ws[wi] * mask[j] : ws[wi];
                        sk_transform x = base[j];
                        if (w != 0.0f) {
                            x.t = sk_vec3_add(x.t, sk_vec3_scale(pd[j].t, w));
                            sk_quat d = pd[j].r, dr = d;
                            if (w != 1.0f && !nl) dr = sk_quat_slerp(sk_quat_identity(), d, w);
                            if (w != 1.0f && nl) { /* (1 - w) identity + w d, d on the identity's side */
                                float sg = d.w < 0.0f ? -1.0f : 1.0f;
                                dr = sk_quat_make(d.x * sg * w, d.y * sg * w, d.z * sg * w, (d.w * sg - 1.0f) * w + 1.0f);
                            }
                            x.r = sk_quat_normalize(sk_quat_mul(x.r, dr));
                            x.s = sk_vec3_mul(x.s, sk_vec3_lerp(sk_vec3_make(1, 1, 1), pd[j].s, w));
                        }
                        assert_memory_equal(&io[j], &x, sizeof x);
                        per_joint++;
                    }
                    char what[96];
                    snprintf(what, sizeof what, "apply additive%s, %u joints, mask %d, weight %g", nl ? " nlerp" : "", n, mk,
                             (double)ws[wi]);
                    sk_soa_pose sio = soa_of(s, base);
                    assert_int_equal((nl ? sk_pose_apply_additive_nlerp_soa : sk_pose_apply_additive_soa)(s, &sio, &sd, ws[wi],
                                                                                                         mask, &err),
                                     SK_OK);
                    sk_test_assert_soa_equal(s, &sio, io, what);
                    for (int wide = 0; wide < widths(); wide++) {
                        assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, base, NULL), &sio, &err), SK_OK);
                        ska_apply_additive_soa(s, &sio, &sd, ws[wi], mask, nl, wide);
                        sk_test_assert_soa_equal(s, &sio, io, what);
                        checks++;
                    }
                    sk_soa_pose_free(&sio, NULL);
                }
        }
        sk_soa_pose_free(&sp, NULL), sk_soa_pose_free(&sr, NULL), sk_soa_pose_free(&sd, NULL);
        free(pp), free(pr), free(pd), free(base), free(io), free(mbuf);
        sk_skeleton_destroy(s);
    }
    printf("sk_pose_apply_additive and its nlerp form against their per-joint definitions: %u joints, bit for bit\n",
           per_joint);
    assert_int_equal(per_joint, 2 * 5 * 5 * (1 + 8 + 13 + 30 + 45));
    assert_int_equal(checks, NSIZES * (1 + 2 * 5 * 5) * (uint32_t)widths());
}

/* The layer stack, and the mannequin: walk as the base, run on the upper
 * body (override, masked), an additive layer made from the crouch against
 * the idle, a slerp crossfade; each step against the sk_pose path. */
static void test_layers_mannequin(void **st) {
    (void)st;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count, checks = 0;
    const sk_clip *walk = a->clips[1], *run = a->clips[2], *idle = a->clips[0], *crouch = a->clips[3];
    float *upper = calloc(n, sizeof *upper), *half = calloc(n, sizeof *half);
    assert_int_equal(sk_mask_set_subtree(s, "spine", 1.0f, upper, &err), SK_OK);
    for (uint32_t j = 0; j < n; j++) half[j] = (float)(j % 3) * 0.5f;
    sk_transform *pw = calloc(n, sizeof *pw), *pr = calloc(n, sizeof *pr), *pi = calloc(n, sizeof *pi),
                 *pc = calloc(n, sizeof *pc), *pd = calloc(n, sizeof *pd), *io = calloc(n, sizeof *io);
    sk_soa_pose sw = soa_of(s, NULL), sr = soa_of(s, NULL), si = soa_of(s, NULL), sc = soa_of(s, NULL),
                sd = soa_of(s, NULL), sio = soa_of(s, NULL);
    for (int f = 0; f < 40; f++) {
        double t = f / 30.0;
        assert_int_equal(sk_clip_sample(walk, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, pw, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample(run, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, pr, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample(idle, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, pi, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample(crouch, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, pc, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample_soa(walk, s, t, SK_LOOP_REPEAT, NULL, 0, &sw, &err), SK_OK);
        assert_int_equal(sk_clip_sample_soa(run, s, t, SK_LOOP_REPEAT, NULL, 0, &sr, &err), SK_OK);
        assert_int_equal(sk_clip_sample_soa(idle, s, t, SK_LOOP_REPEAT, NULL, 0, &si, &err), SK_OK);
        assert_int_equal(sk_clip_sample_soa(crouch, s, t, SK_LOOP_REPEAT, NULL, 0, &sc, &err), SK_OK);
        assert_int_equal(sk_pose_make_additive(s, SK_POSE_OF(s, pc, NULL), SK_POSE_OF(s, pi, NULL),
                                               SK_POSE_OF(s, pd, NULL), &err), SK_OK);
        assert_int_equal(sk_pose_make_additive_soa(s, &sc, &si, &sd, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sd, pd, "mannequin additive");
        float w = (float)f / 39.0f;
        sk_layer layers[5] = {{SK_LAYER_OVERRIDE, 1.0f, upper, SK_POSE_OF(s, pr, NULL)},
                              {SK_LAYER_ADDITIVE, 0.6f * w, NULL, SK_POSE_OF(s, pd, NULL)},
                              {SK_LAYER_OVERRIDE, w, half, SK_POSE_OF(s, pi, NULL)},
                              {SK_LAYER_ADDITIVE, 2.0f, upper, SK_POSE_OF(s, pd, NULL)},
                              {SK_LAYER_ADDITIVE_NLERP, 0.7f * w, half, SK_POSE_OF(s, pd, NULL)}};
        sk_soa_layer sl[5] = {{SK_LAYER_OVERRIDE, 1.0f, upper, &sr},
                              {SK_LAYER_ADDITIVE, 0.6f * w, NULL, &sd},
                              {SK_LAYER_OVERRIDE, w, half, &si},
                              {SK_LAYER_ADDITIVE, 2.0f, upper, &sd},
                              {SK_LAYER_ADDITIVE_NLERP, 0.7f * w, half, &sd}};
        memcpy(io, pw, n * sizeof *io);
        assert_int_equal(sk_layers_apply(s, SK_POSE_OF(s, io, NULL), layers, 5, &err), SK_OK);
        memcpy(sio.data, sw.data, sio.group_count * 80 * sizeof(float));
        assert_int_equal(sk_layers_apply_soa(s, &sio, sl, 5, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sio, io, "mannequin layers");
        { /* the nlerp layer is sk_pose_apply_additive_nlerp */
            sk_transform *chk = calloc(n, sizeof *chk);
            memcpy(chk, pw, n * sizeof *chk);
            assert_int_equal(sk_layers_apply(s, SK_POSE_OF(s, chk, NULL), layers, 4, &err), SK_OK);
            assert_int_equal(sk_pose_apply_additive_nlerp(s, SK_POSE_OF(s, chk, NULL), SK_POSE_OF(s, pd, NULL), 0.7f * w, half, &err),
                             SK_OK);
            assert_memory_equal(chk, io, n * sizeof *chk);
            free(chk);
        }
        /* a slerp crossfade walk -> run */
        sk_pose out = sk_pose_view(io, n, NULL, 0);
        assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pw, NULL), SK_POSE_OF(s, pr, NULL), w, NULL, true, &out, &err), SK_OK);
        assert_int_equal(sk_blend_two_masked_soa(s, &sw, &sr, w, NULL, true, &sio, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sio, io, "mannequin slerp crossfade");
        checks++;
    }
    assert_int_equal(checks, 40);
    sk_soa_pose *all[6] = {&sw, &sr, &si, &sc, &sd, &sio};
    for (int i = 0; i < 6; i++) sk_soa_pose_free(all[i], NULL);
    free(pw), free(pr), free(pi), free(pc), free(pd), free(io), free(upper), free(half);
    sk_asset_destroy(a);
}

static void test_errors(void **st) {
    (void)st;
    sk_skeleton *s = sk_test_chain_skeleton(10, 5), *other = sk_test_chain_skeleton(9, 5);
    sk_error err = {0};
    sk_soa_pose p = soa_of(s, NULL), q = soa_of(s, NULL), wrong = soa_of(other, NULL);
    sk_soa_pose none = sk_soa_pose_view(NULL, 10);
    assert_int_equal(sk_blend_two_masked_soa(s, &p, &wrong, 0.5f, NULL, false, &q, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joints"));
    assert_int_equal(sk_blend_two_masked_soa(s, &p, &q, 0.5f, NULL, true, &none, &err), SK_ERR_INVALID_ARGUMENT);
    sk_soa_blend_input in[2] = {{&p, 1.0f, NULL, NULL}, {NULL, 1.0f, NULL, NULL}};
    assert_int_equal(sk_blend_poses_soa(s, in, 2, NULL, &q, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "input 1"));
    assert_int_equal(sk_blend_poses_soa(s, in, 65, NULL, &q, &err), SK_ERR_LIMIT);
    assert_int_equal(sk_blend_poses_soa(s, NULL, 1, NULL, &q, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_blend_poses_soa(s, NULL, 0, NULL, &q, &err), SK_OK); /* nothing: the rest pose */
    sk_test_assert_soa_equal(s, &q, s->rest, "no inputs");
    assert_int_equal(sk_pose_make_additive_soa(s, &p, &wrong, &q, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_pose_apply_additive_soa(s, &p, &wrong, 1.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    /* a bad layer anywhere in the stack: nothing applied */
    sk_transform *before = calloc(10, sizeof *before);
    uint32_t seed = 1;
    rnd_pose(10, &seed, NULL, before);
    assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, before, NULL), &p, &err), SK_OK);
    sk_soa_layer layers[3] = {{SK_LAYER_ADDITIVE, 1.0f, NULL, &q}, {SK_LAYER_OVERRIDE, 0.5f, NULL, &q},
                              {SK_LAYER_OVERRIDE, 0.5f, NULL, NULL}};
    assert_int_equal(sk_layers_apply_soa(s, &p, layers, 3, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "layer 2"));
    sk_test_assert_soa_equal(s, &p, before, "unchanged after a bad layer");
    layers[2].pose = &wrong;
    assert_int_equal(sk_layers_apply_soa(s, &p, layers, 3, &err), SK_ERR_INVALID_ARGUMENT);
    sk_test_assert_soa_equal(s, &p, before, "unchanged after a bad layer");
    assert_int_equal(sk_layers_apply_soa(s, &p, NULL, 1, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_layers_apply_soa(NULL, &p, layers, 1, &err), SK_ERR_INVALID_ARGUMENT);
    free(before);
    sk_soa_pose_free(&p, NULL), sk_soa_pose_free(&q, NULL), sk_soa_pose_free(&wrong, NULL);
    sk_skeleton_destroy(s), sk_skeleton_destroy(other);
}

/* sk_blend_two's own per-joint result (its eight-joints-at-a-time path where the CPU has AVX2)
 * against the public per-joint functions it is defined by (sk_vec3_lerp, sk_quat_nlerp, as
 * blend.h says), bit for bit, for every size (8-joint groups and the joints after them), t, and
 * out aliasing a or b; morph weights lerped with t. */
static void test_two_per_joint(void **st) {
    (void)st;
    uint32_t checks = 0;
    const float ts[] = {0.3f, 1.0f, -0.25f, 1.5f, 0.71f};
    for (size_t k = 0; k < NSIZES; k++) {
        uint32_t n = sizes[k], seed = 17 * n + 3;
        sk_skeleton *s = sk_test_chain_skeleton(n, 5);
        sk_error err = {0};
        sk_transform *pa = calloc(n, sizeof *pa), *pb = calloc(n, sizeof *pb), *po = calloc(n, sizeof *po);
        sk_transform *ref = calloc(n, sizeof *ref), *alias = calloc(n, sizeof *alias);
        rnd_pose(n, &seed, NULL, pa);
        rnd_pose(n, &seed, pa, pb);
        if (n > 20) pa[9].r = sk_quat_make(0, 0, 0, 0), pb[9].r = sk_quat_make(0, 0, 0, 0); /* identity out */
        for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++) {
            float t = ts[ti];
            for (uint32_t j = 0; j < n; j++) {
                ref[j].t = sk_vec3_lerp(pa[j].t, pb[j].t, t);
                ref[j].s = sk_vec3_lerp(pa[j].s, pb[j].s, t);
                ref[j].r = sk_quat_nlerp(pa[j].r, pb[j].r, t);
            }
            sk_pose out = sk_pose_view(po, n, NULL, 0);
            assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), SK_POSE_OF(s, pb, NULL), t, NULL, false, &out, &err), SK_OK);
            assert_memory_equal(po, ref, n * sizeof *ref);
            memcpy(alias, pa, n * sizeof *alias);
            sk_pose al = sk_pose_view(alias, n, NULL, 0);
            assert_int_equal(sk_blend_two(s, &al, SK_POSE_OF(s, pb, NULL), t, NULL, false, &al, &err), SK_OK);
            assert_memory_equal(alias, ref, n * sizeof *ref);
            memcpy(alias, pb, n * sizeof *alias);
            assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), &al, t, NULL, false, &al, &err), SK_OK);
            assert_memory_equal(alias, ref, n * sizeof *ref);
            checks += 3 * n;
        }
        free(pa), free(pb), free(po), free(ref), free(alias);
        sk_skeleton_destroy(s);
    }
    printf("sk_blend_two against sk_vec3_lerp / sk_quat_nlerp per joint: %u joint results, bit for bit (%s)\n", checks,
           sk_soa_use_avx2()                   ? "eight joints at a time, AVX2"
           : sk_simd_best() >= SK_SIMD_SSE2 ? "four joints at a time, SSE2"
                                            : "scalar");
    assert_int_equal(checks, 3 * 5 * (1 + 8 + 13 + 30 + 45));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_masked), cmocka_unit_test(test_two_per_joint), cmocka_unit_test(test_poses_masked), cmocka_unit_test(test_additive),
        cmocka_unit_test(test_layers_mannequin), cmocka_unit_test(test_errors),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
