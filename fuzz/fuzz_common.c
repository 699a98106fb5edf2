/* Shared helpers of the fuzzing harnesses: fuzz_common.h. */
#include "fuzz_common.h"

#include "core/clip_internal.h" /* the scalar decoder beside the AVX2 one */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: broken promise: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

uint8_t fz_u8(fz_bytes *b) {
    if (!b || b->n == 0) return 0;
    uint8_t v = b->p[0];
    b->p++;
    b->n--;
    return v;
}

uint32_t fz_u32(fz_bytes *b) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(b) << (8 * i);
    return v;
}

float fz_raw_float(fz_bytes *b) {
    uint32_t u = fz_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float fz_range(fz_bytes *b, float lo, float hi) {
    uint32_t v = (uint32_t)fz_u8(b) | ((uint32_t)fz_u8(b) << 8);
    return lo + (hi - lo) * ((float)v / 65535.0f);
}

float fz_float(fz_bytes *b, float lo, float hi) {
    if ((fz_u8(b) & 7) == 7) return fz_raw_float(b);
    return fz_range(b, lo, hi);
}

void fz_split(const uint8_t *data, size_t size, const char *sep, fz_bytes *head, fz_bytes *tail) {
    size_t k = strlen(sep);
    head->p = data;
    head->n = size;
    tail->p = NULL;
    tail->n = 0;
    if (size < k) return;
    for (size_t i = 0; i + k <= size; i++) {
        if (data[i] == (uint8_t)sep[0] && memcmp(data + i, sep, k) == 0) {
            head->n = i;
            tail->p = data + i + k;
            tail->n = size - i - k;
            return;
        }
    }
}

static sk_result fz_read(void *user, const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                         size_t *size, sk_error *err) {
    fz_files *f = user;
    const fz_bytes *src = strcmp(path, f->main_path) == 0 ? &f->head : &f->tail;
    if (!src->p && src != &f->head) return sk_error_set(err, SK_ERR_IO, "%s: cannot open: no such file", path);
    if (src->n > max_size) return sk_error_set(err, SK_ERR_LIMIT, "%s: %zu bytes exceed the limit", path, src->n);
    void *p = sk_alloc(alloc, src->n ? src->n : 1);
    if (!p) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (src->n) memcpy(p, src->p, src->n);
    *data = p;
    *size = src->n;
    return SK_OK;
}

static void fz_release(void *user, const sk_allocator *alloc, void *data, size_t size) {
    (void)user;
    sk_free(alloc, data, size ? size : 1);
}

static sk_result fz_write(void *user, const char *path, const void *data, size_t size, sk_error *err) {
    (void)user;
    (void)data;
    (void)size;
    return sk_error_set(err, SK_ERR_IO, "%s: the fuzz file system writes nothing", path);
}

void fz_files_init(fz_files *f, const char *main_path, const uint8_t *data, size_t size) {
    memset(f, 0, sizeof *f);
    f->main_path = main_path;
    fz_split(data, size, SK_FUZZ_BIN_SEP, &f->head, &f->tail);
    if (!f->head.p) f->head.p = (const uint8_t *)"";
    f->io.read = fz_read;
    f->io.release = fz_release;
    f->io.write = fz_write;
    f->io.user = f;
}

static void fz_warning(void *user, const char *message) {
    (void)message;
    (*(uint32_t *)user)++;
}

void fz_gltf_options(sk_gltf_options *o, fz_files *files, uint32_t *warnings) {
    memset(o, 0, sizeof *o);
    if (files) o->file_io = files->io;
    o->max_decoded_bytes = 16u << 20;
    o->warning = fz_warning;
    o->warning_user = warnings;
}

int fz_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

int fz_pose_finite(const sk_pose *p) {
    if (!fz_finite((const float *)p->local, (size_t)p->joint_count * (sizeof(sk_transform) / sizeof(float))))
        return 0;
    return p->weight_count == 0 || fz_finite(p->weights, p->weight_count);
}

static void fz_skin_primitive(const sk_primitive *prim, const sk_mat4 *palette, uint32_t palette_count,
                              const float *morph, uint32_t morph_count) {
    if (prim->vertex_count == 0 || prim->vertex_count > 4096 || prim->missing_data) return;
    sk_error err = {0};
    sk_skinned_mesh *m = NULL;
    sk_result r = sk_skinned_mesh_create(prim, NULL, &m, &err);
    if (r == SK_ERR_OUT_OF_MEMORY) return;
    if (r != SK_OK) fz_fail("sk_skinned_mesh_create on a loaded primitive: %s", err.message);
    uint32_t n = sk_skinned_mesh_vertex_count(m);
    float *pos = malloc((size_t)n * 3 * sizeof(float) + 1);
    float *nrm = malloc((size_t)n * 3 * sizeof(float) + 1);
    if (pos && nrm && sk_skinned_mesh_palette_size(m) <= palette_count) {
        sk_skin_job job = {0};
        job.mesh = m;
        job.method = SK_SKIN_LBS;
        job.palette = palette;
        job.palette_count = palette_count;
        job.morph_weights = morph_count == sk_skinned_mesh_target_count(m) ? morph : NULL;
        job.out_positions = pos;
        job.out_normals = sk_skinned_mesh_has_normals(m) ? nrm : NULL;
        if (sk_skin_run(&job, &err) != SK_OK) fz_fail("sk_skin_run (LBS) on a loaded primitive: %s", err.message);
        sk_dual_quat *dq = malloc((size_t)palette_count * sizeof *dq + 1);
        if (dq && sk_skin_dual_quats(palette, palette_count, dq, &err) == SK_OK) {
            job.method = SK_SKIN_DQS;
            job.dual_quats = dq;
            if (sk_skin_run(&job, &err) != SK_OK) fz_fail("sk_skin_run (DQS): %s", err.message);
        }
        free(dq);
    }
    free(pos);
    free(nrm);
    sk_skinned_mesh_destroy(m);
}

/* The structure-of-arrays functions (core/soa.h) promise the AoS functions'
 * bits: sampling at t, local-to-model on the sampled pose, and sampling at
 * t again into a pose that holds the clip at another time
 * (sk_clip_sample_soa_update), compared with memcmp (finite results only:
 * NaN payloads are not part of the promise). */
static void fz_check_soa(const sk_skeleton *skel, const sk_clip *clip, double t, sk_loop_mode loop, const sk_pose *aos,
                         const sk_mat4 *model) {
    uint32_t jc = skel->joint_count;
    if (!fz_finite((const float *)aos->local, (size_t)jc * 10)) return;
    sk_error err = {0};
    sk_soa_pose soa;
    if (sk_soa_pose_alloc(skel, NULL, &soa, &err) != SK_OK) return;
    sk_transform *back = malloc((size_t)(jc ? jc : 1) * sizeof *back);
    sk_mat4 *m2 = malloc((size_t)(jc ? jc : 1) * sizeof *m2);
    if (back && m2) {
        sk_result r = clip ? sk_clip_sample_soa(clip, skel, t, loop, NULL, 0, &soa, &err)
                           : sk_soa_pose_from_pose(skel, aos, &soa, &err);
        if (r == SK_ERR_LIMIT && clip && sk_clip_is_compressed(clip)) goto out; /* documented: > 256 joints */
        if (r != SK_OK) fz_fail("SoA sampling: %s", err.message);
        sk_pose bp = sk_pose_view(back, jc, NULL, 0);
        if (sk_soa_pose_to_pose(skel, &soa, &bp, &err) != SK_OK) fz_fail("sk_soa_pose_to_pose: %s", err.message);
        if (jc && memcmp(back, aos->local, (size_t)jc * sizeof *back) != 0)
            fz_fail("sk_clip_sample_soa differs from sk_clip_sample at t = %g", t);
        if (model && fz_finite((const float *)model, (size_t)jc * 16)) {
            if (sk_local_to_model_soa(skel, &soa, NULL, m2, jc, &err) != SK_OK) fz_fail("sk_local_to_model_soa: %s", err.message);
            if (jc && memcmp(m2, model, (size_t)jc * sizeof *m2) != 0) fz_fail("sk_local_to_model_soa differs");
        }
        /* sk_clip_sample_soa_update into the pose sampled at another time: the same bits */
        if (clip) {
            if (sk_clip_sample_soa(clip, skel, 0.5 * t + 0.1, loop, NULL, 0, &soa, &err) != SK_OK ||
                sk_clip_sample_soa_update(clip, skel, t, loop, NULL, 0, &soa, &err) != SK_OK)
                fz_fail("SoA sampling again: %s", err.message);
            if (sk_soa_pose_to_pose(skel, &soa, &bp, &err) != SK_OK) fz_fail("sk_soa_pose_to_pose: %s", err.message);
            if (jc && memcmp(back, aos->local, (size_t)jc * sizeof *back) != 0)
                fz_fail("sk_clip_sample_soa_update differs from sk_clip_sample at t = %g", t);
        }
    }
out:
    free(back);
    free(m2);
    sk_soa_pose_free(&soa, NULL);
}

void fz_exercise_asset(const sk_asset *asset, fz_bytes *b) {
    const sk_skeleton *skel = asset->skeleton;
    sk_error err = {0};
    sk_pose pose;
    if (sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK) return;
    uint32_t jc = skel->joint_count;
    sk_mat4 *model = malloc((size_t)(jc ? jc : 1) * sizeof *model);
    uint32_t max_skin = 1;
    for (uint32_t s = 0; s < asset->skin_count; s++)
        if (asset->skins[s].joint_count > max_skin) max_skin = asset->skins[s].joint_count;
    sk_mat4 *palette = malloc((size_t)max_skin * sizeof *palette);
    if (!model || !palette) goto done;

    uint32_t clips = asset->clip_count < 4 ? asset->clip_count : 4;
    for (uint32_t c = 0; c <= clips; c++) {
        if (c < clips) {
            const sk_clip *clip = asset->clips[c];
            double d = sk_clip_duration(clip);
            double times[6] = {0.0, d * 0.37, d, -0.25 * d - 0.1, (double)fz_float(b, -2.0f, 2.0f) * (d + 1.0),
                               (double)fz_raw_float(b)};
            for (int k = 0; k < 6; k++)
                for (int loop = 0; loop < 3; loop++) {
                    if (sk_clip_sample(clip, skel, times[k], (sk_loop_mode)loop, &pose, &err) != SK_OK)
                        fz_fail("sk_clip_sample on a loaded clip: %s", err.message);
                    if (sk_clip_is_compressed(clip) && jc) { /* the AVX2 decoder gives the scalar one's bits */
                        sk_transform *sc = malloc((size_t)jc * sizeof *sc);
                        if (sc) {
                            memcpy(sc, skel->rest, (size_t)jc * sizeof *sc);
                            sk_cclip_sample_tracks_simd(clip, sk_clip_wrap_time(clip, times[k], (sk_loop_mode)loop), NULL, sc, SK_CC_SCALAR);
                            if (memcmp(sc, pose.local, (size_t)jc * sizeof *sc) != 0)
                                fz_fail("the AVX2 and scalar decoders differ at t = %g", times[k]);
                            free(sc);
                        }
                    }
                    if (loop == 0 && k < 3) {
                        if (sk_local_to_model(skel, &pose, NULL, model, jc, &err) != SK_OK)
                            fz_fail("sk_local_to_model: %s", err.message);
                        fz_check_soa(skel, clip, times[k], (sk_loop_mode)loop, &pose, model);
                    }
                }
            /* a compressed clip's cursor then keeps decoded frames: two, then (the second 64 samples,
             * the same cursor passed longer) three, one of them decoded ahead */
            size_t cn = sk_clip_cursor_ahead_size(clip), c2 = sk_clip_cursor_cache_size(clip);
            uint32_t *cursor = calloc(cn ? cn : 1, sizeof *cursor);
            sk_transform *ref = jc ? malloc((size_t)jc * sizeof *ref) : NULL;
            if (cursor && (ref || !jc)) {
                for (int q = 0; q < 2 * (16 + 48); q++) {
                    /* pairs of close times (the cache reused), then forward and back in 24 steps
                     * (a clip of up to 24 frames: steps by one frame, which decode only the new one) */
                    int k = q % (16 + 48);
                    double t = k < 16 ? d * (k / 2 - 2) / 3.0 + (k & 1) * d / 97.0 : d * (k < 40 ? k - 16 : 63 - k) / 24.0;
                    if (sk_clip_sample_cursor(clip, skel, t, SK_LOOP_REPEAT, cursor, q < 16 + 48 ? c2 : cn, &pose, &err) != SK_OK)
                        fz_fail("sk_clip_sample_cursor: %s", err.message);
                    if (!jc) continue;
                    memcpy(ref, pose.local, (size_t)jc * sizeof *ref);
                    if (sk_clip_sample(clip, skel, t, SK_LOOP_REPEAT, &pose, &err) != SK_OK) fz_fail("sk_clip_sample: %s", err.message);
                    if (memcmp(ref, pose.local, (size_t)jc * sizeof *ref) != 0)
                        fz_fail("sampling through a cursor differs from sampling without one at t = %g", t);
                }
            }
            free(cursor);
            free(ref);
        } else if (sk_pose_rest(skel, &pose, &err) != SK_OK) {
            fz_fail("sk_pose_rest: %s", err.message);
        }
        if (sk_local_to_model(skel, &pose, NULL, model, jc, &err) != SK_OK)
            fz_fail("sk_local_to_model: %s", err.message);
        if (!fz_finite((const float *)model, (size_t)jc * 16))
            fz_fail("a model matrix is not finite (clip %u of %u)", c, clips);
        for (uint32_t j = 0; j < jc && j < 64; j++) {
            int32_t mi = asset->joint_mesh[j], si = asset->joint_skin[j];
            if (mi < 0) continue;
            const sk_mesh *mesh = &asset->meshes[mi];
            const sk_mat4 *pal = &model[j];
            uint32_t pc = 1;
            if (si >= 0) {
                const sk_skin *skin = &asset->skins[si];
                if (sk_skin_palette(skin, model, jc, palette, max_skin, &err) != SK_OK)
                    fz_fail("sk_skin_palette: %s", err.message);
                if (!fz_finite((const float *)palette, (size_t)skin->joint_count * 16))
                    fz_fail("a palette entry is not finite (skin %d)", si);
                pal = palette;
                pc = skin->joint_count;
            }
            const float *mw = pose.weight_count ? pose.weights + skel->weight_offset[j] : NULL;
            uint32_t mwc = pose.weight_count ? skel->weight_count[j] : 0;
            for (uint32_t p = 0; p < mesh->primitive_count && p < 4; p++) {
                const sk_primitive *prim = &mesh->primitives[p];
                sk_vec3 v;
                for (uint32_t k = 0; k < prim->vertex_count && k < 8; k++)
                    (void)sk_primitive_vertex_position(prim, k, mwc == prim->target_count ? mw : NULL,
                                                       si >= 0 ? pal : NULL, pc, si >= 0 ? NULL : pal, &v);
                if (c == clips) fz_skin_primitive(prim, pal, pc, mw, mwc);
            }
        }
    }
done:
    free(model);
    free(palette);
    sk_pose_free(&pose, NULL);
}

const sk_asset *fz_mannequin(void) {
    static sk_asset *m;
    if (!m) {
        sk_error err = {0};
        if (sk_mannequin_create(NULL, NULL, &m, &err) != SK_OK) fz_fail("sk_mannequin_create: %s", err.message);
    }
    return m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}
