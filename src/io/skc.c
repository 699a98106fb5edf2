/* The packed clip format (io/skc.h). */
#include "core/internal.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/io/skc.h"

#include <math.h>
#include <stdio.h>

#include <zlib.h>

#define SKC_MAGIC 0x00434b53u /* "SKC\0" */
#define SKC_HEADER 64u
#define SKC_JOINT 56u
#define SKC_CLIP 24u

static void w32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24); }
static void wf(uint8_t *p, float f) { uint32_t u; memcpy(&u, &f, 4); w32(p, u); }
static uint32_t r32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static float rf(const uint8_t *p) { uint32_t u = r32(p); float f; memcpy(&f, &u, 4); return f; }

/* CRC-32 of the file but its own field (bytes 16-19), by zlib. */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32_z(c, p, n < 16 ? n : 16);
    if (n > 20) c = crc32_z(c, p + 20, n - 20);
    return (uint32_t)c;
}

uint32_t sk_skc_checksum(const void *data, size_t size) { return data ? crc32_of(data, size) : 0u; }

static size_t align4(size_t v) { return (v + 3u) & ~(size_t)3u; }

/* Size of a keys clip's record, or 0 on overflow. */
static size_t keys_size(const sk_clip *c) {
    size_t n = 8;
    for (uint32_t i = 0; i < sk_clip_track_count(c); i++) {
        sk_track_info ti;
        sk_clip_track_info(c, i, &ti);
        size_t per = (size_t)ti.width * (ti.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u), v;
        if (!sk_size_mul(per + 1, ti.key_count, &v) || !sk_size_mul(v, 4, &v) || !sk_size_add(n, 16 + v, &n)) return 0;
    }
    return n;
}

sk_result sk_skc_write_memory(const sk_skeleton *s, sk_clip *const *clips, uint32_t count, double mpu,
                              const sk_allocator *alloc, void **out, size_t *size_out, sk_error *err) {
    if (!out || !size_out || !s || (count && !clips))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skc_write_memory: NULL argument");
    *out = NULL, *size_out = 0;
    if (!(mpu > 0.0 && isfinite(mpu))) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "skc: metres per unit must be positive");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    uint32_t J = s->joint_count;
    size_t strings = 0, size = SKC_HEADER;
    for (uint32_t j = 0; j < J; j++) strings += strlen(s->names[j]);
    for (uint32_t i = 0; i < count; i++) {
        if (!clips[i]) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "skc: clip %u is NULL", i);
        strings += strlen(sk_clip_name(clips[i]));
    }
    size_t off_skel = size;
    size += (size_t)J * SKC_JOINT + (size_t)s->weight_total * 4u;
    size_t off_table = size;
    size += (size_t)count * SKC_CLIP;
    size_t *coff = sk_alloc(a, (count + 1) * sizeof(size_t));
    if (!coff) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        size_t cs = 0;
        if (!sk_clip_compressed_data(clips[i], NULL, &cs)) cs = keys_size(clips[i]);
        coff[i] = size;
        if (!cs || !sk_size_add(size, align4(cs), &size)) size = SIZE_MAX;
        if (size > SK_SKC_MAX_BYTES) break;
    }
    size_t off_str = size;
    size += strings;
    size = align4(size);
    if (size > SK_SKC_MAX_BYTES) {
        sk_free(a, coff, (count + 1) * sizeof(size_t));
        return sk_error_set(err, SK_ERR_LIMIT, "skc: more than 4 GiB");
    }
    uint8_t *b = sk_alloc(a, size);
    if (!b) {
        sk_free(a, coff, (count + 1) * sizeof(size_t));
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    w32(b, SKC_MAGIC), w32(b + 4, SK_SKC_VERSION), w32(b + 8, SKC_HEADER), w32(b + 12, (uint32_t)size);
    memcpy(b + 24, &mpu, 8); /* little-endian hosts; the loader reads it the same way */
    w32(b + 32, J), w32(b + 36, count), w32(b + 40, (uint32_t)off_skel), w32(b + 44, s->weight_total);
    w32(b + 48, (uint32_t)off_table), w32(b + 52, (uint32_t)off_str), w32(b + 56, (uint32_t)strings);
    size_t so = 0;
    for (uint32_t j = 0; j < J; j++) {
        uint8_t *p = b + off_skel + (size_t)j * SKC_JOINT;
        size_t nl = strlen(s->names[j]);
        w32(p, (uint32_t)s->parents[j]), w32(p + 4, (uint32_t)so), w32(p + 8, (uint32_t)nl);
        memcpy(b + off_str + so, s->names[j], nl);
        so += nl;
        const sk_transform *x = &s->rest[j];
        float v[10] = {x->t.x, x->t.y, x->t.z, x->r.x, x->r.y, x->r.z, x->r.w, x->s.x, x->s.y, x->s.z};
        for (int k = 0; k < 10; k++) wf(p + 12 + 4 * k, v[k]);
        w32(p + 52, s->weight_count[j]);
    }
    for (uint32_t w = 0; w < s->weight_total; w++) wf(b + off_skel + (size_t)J * SKC_JOINT + 4u * w, s->rest_weights[w]);
    for (uint32_t i = 0; i < count; i++) {
        const sk_clip *c = clips[i];
        uint8_t *t = b + off_table + (size_t)i * SKC_CLIP, *p = b + coff[i];
        const void *blob;
        size_t bs;
        const char *nm = sk_clip_name(c);
        size_t nl = strlen(nm);
        memcpy(b + off_str + so, nm, nl);
        w32(t + 12, (uint32_t)so), w32(t + 16, (uint32_t)nl);
        so += nl;
        w32(t, (uint32_t)coff[i]);
        if (sk_clip_compressed_data(c, &blob, &bs)) {
            memcpy(p, blob, bs);
            w32(t + 4, (uint32_t)bs), w32(t + 8, 1);
            continue;
        }
        size_t ks = keys_size(c), o = 8;
        w32(t + 4, (uint32_t)ks), w32(t + 8, 0);
        w32(p, sk_clip_track_count(c)), wf(p + 4, (float)sk_clip_duration(c));
        for (uint32_t k = 0; k < sk_clip_track_count(c); k++) {
            sk_track_info ti;
            sk_clip_track_info(c, k, &ti);
            size_t per = (size_t)ti.width * (ti.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
            w32(p + o, ti.joint), p[o + 4] = (uint8_t)ti.path, p[o + 5] = (uint8_t)ti.interpolation;
            w32(p + o + 8, ti.key_count), w32(p + o + 12, ti.width);
            o += 16;
            float *tm = (float *)(void *)(p + o), *vl = (float *)(void *)(p + o + 4u * ti.key_count);
            sk_clip_track_keys(c, k, tm, vl); /* 4-aligned; little-endian hosts */
            o += 4u * (ti.key_count + per * ti.key_count);
        }
    }
    w32(b + 16, crc32_of(b, size));
    sk_free(a, coff, (count + 1) * sizeof(size_t));
    *out = b;
    *size_out = size;
    return SK_OK;
}

sk_result sk_skc_write_file(const char *path, const sk_file_io *io, const sk_skeleton *s, sk_clip *const *clips,
                            uint32_t count, double mpu, sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skc_write_file: path is NULL");
    void *data = NULL;
    size_t size = 0;
    sk_result r = sk_skc_write_memory(s, clips, count, mpu, NULL, &data, &size, err);
    if (r != SK_OK) return r;
    r = sk_file_write(io, path, data, size, err);
    sk_free(sk_allocator_or_default(NULL), data, size);
    return r;
}

static sk_result bad(sk_error *err, const char *what, uint32_t i) {
    return sk_error_set(err, SK_ERR_INVALID_DATA, "skc: %s (%u)", what, i);
}

/* A keys clip record at p (n bytes, all inside the buffer). */
static sk_result load_keys(const uint8_t *p, size_t n, const char *name, const sk_allocator *a, sk_clip **out,
                           sk_error *err) {
    if (n < 8) return bad(err, "keys clip shorter than its header", 0);
    uint32_t T = r32(p);
    float dur = rf(p + 4);
    if (!(dur >= 0.0f && dur <= 3e38f)) return bad(err, "keys clip duration", 0);
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(name, a, &b, err);
    if (r != SK_OK) return r;
    size_t o = 8;
    float *tm = NULL, *vl = NULL;
    size_t tcap = 0, vcap = 0;
    for (uint32_t i = 0; i < T && r == SK_OK; i++) {
        if (n - o < 16) { r = bad(err, "track outside the clip", i); break; }
        uint32_t keys = r32(p + o + 8), width = r32(p + o + 12), interp = p[o + 5];
        if (width == 0 || width > 65536 || keys == 0 || interp > 2) { r = bad(err, "bad track", i); break; }
        uint64_t per = (uint64_t)width * (interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        uint64_t need = 4ull * keys * (1 + per);
        if (need > n - o - 16) { r = bad(err, "track keys outside the clip", i); break; }
        /* copies: the buffer may be unaligned */
        size_t tb = 4u * (size_t)keys, vb = (size_t)(need - tb);
        if (tb > tcap) { sk_free(a, tm, tcap); tm = sk_alloc(a, tb); tcap = tm ? tb : 0; }
        if (vb > vcap) { sk_free(a, vl, vcap); vl = sk_alloc(a, vb); vcap = vl ? vb : 0; }
        if (!tm || !vl) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
        memcpy(tm, p + o + 16, tb);
        memcpy(vl, p + o + 16 + tb, vb);
        sk_track_desc d = {r32(p + o), (sk_track_path)p[o + 4], (sk_interpolation)interp, keys, tm, vl, width};
        r = sk_clip_builder_add_track(b, &d, err);
        o += 16 + (size_t)need;
    }
    sk_free(a, tm, tcap);
    sk_free(a, vl, vcap);
    if (r != SK_OK) {
        sk_clip_builder_destroy(b);
        return r;
    }
    sk_clip_builder_set_duration(b, dur);
    return sk_clip_builder_finish(b, out, err);
}

/* Largest |translation| (lengths) or |component| (scale, rotation) a track can produce
 * (CUBICSPLINE: value + key span * tangent, a bound of the Hermite curve). */
static double track_bound(const float *times, const float *v, const sk_track_info *in, bool length) {
    uint32_t n = in->key_count, w = in->width;
    bool cubic = in->interpolation == SK_INTERP_CUBICSPLINE;
    double vmax = 0.0, mmax = 0.0;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t part = 0; part < (cubic ? 3u : 1u); part++) {
            const float *x = v + ((size_t)k * (cubic ? 3u : 1u) + part) * w;
            double m = 0.0;
            if (length) m = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
            else
                for (uint32_t c = 0; c < w; c++) m = fmax(m, fabs((double)x[c]));
            if (cubic && part != 1) mmax = fmax(mmax, m);
            else vmax = fmax(vmax, m);
        }
    double span = n ? (double)times[n - 1] - (double)times[0] : 0.0;
    return vmax + span * mmax;
}

/* Finite is not enough: what any clip can produce must stay finite in model
 * space (the glTF reader's check, io/gltf_limits.c, on the .skc's data), and
 * a CUBICSPLINE rotation's curve finite before it is normalised. */
static sk_result check_world_range(const sk_asset *a, const sk_allocator *al, sk_error *err) {
    const sk_skeleton *s = a->skeleton;
    uint32_t J = s->joint_count;
    double *tb = sk_alloc(al, (size_t)J * 4 * sizeof(double));
    if (!tb) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    double *sb = tb + J, *A = sb + J, *B = A + J;
    for (uint32_t j = 0; j < J; j++) {
        const sk_transform *r = &s->rest[j];
        tb[j] = sqrt((double)r->t.x * r->t.x + (double)r->t.y * r->t.y + (double)r->t.z * r->t.z);
        sb[j] = fmax(fabs((double)r->s.x), fmax(fabs((double)r->s.y), fabs((double)r->s.z)));
    }
    size_t cap = 0;
    float *times = NULL, *vals = NULL;
    sk_result r = SK_OK;
    for (uint32_t c = 0; c < a->clip_count && r == SK_OK; c++)
        for (uint32_t i = 0; i < sk_clip_track_count(a->clips[c]); i++) {
            sk_track_info in;
            if (!sk_clip_track_info(a->clips[c], i, &in) || in.joint >= J) continue;
            if (in.path == SK_PATH_WEIGHTS || (in.path == SK_PATH_ROTATION && in.interpolation != SK_INTERP_CUBICSPLINE))
                continue; /* LINEAR/STEP rotations are unit quaternions: they change no length */
            size_t nv = (size_t)in.key_count * in.width * (in.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
            if (nv > cap) {
                sk_free(al, times, cap * sizeof(float));
                sk_free(al, vals, cap * sizeof(float));
                cap = nv;
                times = sk_alloc(al, cap * sizeof(float));
                vals = sk_alloc(al, cap * sizeof(float));
                if (!times || !vals) {
                    r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
                    break;
                }
            }
            sk_clip_track_keys(a->clips[c], i, times, vals);
            double b = track_bound(times, vals, &in, in.path == SK_PATH_TRANSLATION);
            if (in.path == SK_PATH_ROTATION) { /* a Hermite curve of quaternions: finite before it is normalised */
                if (!(b <= SK_SKC_MAX_WORLD)) {
                    r = sk_error_set(err, SK_ERR_INVALID_DATA,
                                     "skc: clip %u: joint %u's CUBICSPLINE rotation can reach %.3g: beyond the limit of %g "
                                     "(SK_SKC_MAX_WORLD)", c, in.joint, b, SK_SKC_MAX_WORLD);
                    break;
                }
            } else if (in.path == SK_PATH_TRANSLATION) tb[in.joint] = fmax(tb[in.joint], b);
            else sb[in.joint] = fmax(sb[in.joint], b);
        }
    for (uint32_t j = 0; j < J && r == SK_OK; j++) {
        int32_t p = s->parents[j];
        double ap = p >= 0 ? A[p] : 1.0, bp = p >= 0 ? B[p] : 0.0;
        A[j] = ap * sb[j];
        B[j] = bp + ap * tb[j];
        if (!(A[j] <= SK_SKC_MAX_WORLD) || !(B[j] <= SK_SKC_MAX_WORLD))
            r = sk_error_set(err, SK_ERR_INVALID_DATA,
                             "skc: joint %u can reach a translation of %.3g and a scale of %.3g in model space: beyond "
                             "the limit of %g (SK_SKC_MAX_WORLD)", j, B[j], A[j], SK_SKC_MAX_WORLD);
    }
    sk_free(al, times, cap * sizeof(float));
    sk_free(al, vals, cap * sizeof(float));
    sk_free(al, tb, (size_t)J * 4 * sizeof(double));
    return r;
}

sk_result sk_skc_load_memory(const void *data, size_t size, bool in_place, const sk_allocator *alloc, sk_asset **out,
                             double *mpu_out, sk_error *err) {
    if (!out || (!data && size)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skc_load_memory: NULL argument");
    *out = NULL;
    const uint8_t *b = data;
    if (size < SKC_HEADER) return bad(err, "shorter than the header", (uint32_t)size);
    if (r32(b) != SKC_MAGIC) return sk_error_set(err, SK_ERR_PARSE, "skc: not a .skc file (bad magic)");
    if (r32(b + 4) != SK_SKC_VERSION) return sk_error_set(err, SK_ERR_UNSUPPORTED, "skc: version %u (this reader: %u)", r32(b + 4), SK_SKC_VERSION);
    if (r32(b + 8) != SKC_HEADER || r32(b + 20) != 0 || r32(b + 60) != 0) return bad(err, "bad header", 0);
    if (size > SK_SKC_MAX_BYTES || r32(b + 12) != size) return bad(err, "size does not match the header (truncated?)", r32(b + 12));
    if (crc32_of(b, size) != r32(b + 16)) return bad(err, "checksum mismatch", 0);
    double mpu;
    memcpy(&mpu, b + 24, 8);
    if (!(mpu > 0.0 && mpu <= 1e9)) return bad(err, "bad metres per unit", 0);
    uint32_t J = r32(b + 32), C = r32(b + 36), os = r32(b + 40), W = r32(b + 44), ot = r32(b + 48), ostr = r32(b + 52),
             nstr = r32(b + 56);
    if (J == 0 || J > SK_MAX_JOINTS) return bad(err, "joint count", J);
    if (os < SKC_HEADER || (uint64_t)os + (uint64_t)J * SKC_JOINT + 4ull * W > size) return bad(err, "skeleton outside the file", os);
    if (ot < SKC_HEADER || (uint64_t)ot + (uint64_t)C * SKC_CLIP > size) return bad(err, "clip table outside the file", ot);
    if (ostr < SKC_HEADER || (uint64_t)ostr + nstr > size) return bad(err, "strings outside the file", ostr);
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_asset *as = NULL;
    sk_result r = sk_asset_create_empty(a, &as, err);
    if (r != SK_OK) return r;
    int32_t *parents = sk_asset_alloc(as, (size_t)J * sizeof *parents);
    sk_transform *rest = sk_asset_alloc(as, (size_t)J * sizeof *rest);
    const char **names = sk_asset_alloc(as, (size_t)J * sizeof *names);
    uint32_t *wc = sk_asset_alloc(as, (size_t)J * sizeof *wc);
    float *rw = sk_asset_alloc(as, (size_t)W * sizeof *rw + 4);
    uint32_t *n2j = sk_asset_alloc(as, (size_t)J * sizeof *n2j), *j2n = sk_asset_alloc(as, (size_t)J * sizeof *j2n);
    int32_t *jm = sk_asset_alloc(as, (size_t)J * sizeof *jm), *jsk = sk_asset_alloc(as, (size_t)J * sizeof *jsk);
    sk_clip **clips = sk_asset_alloc(as, (size_t)C * sizeof *clips + sizeof *clips);
    sk_scene *scene = sk_asset_alloc(as, sizeof *scene);
    uint32_t *roots = sk_asset_alloc(as, (size_t)J * sizeof *roots);
    char *nbuf = NULL;
    if (!parents || !rest || !names || !wc || !rw || !n2j || !j2n || !jm || !jsk || !clips || !scene || !roots) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        goto fail;
    }
    uint64_t wsum = 0;
    uint32_t nroots = 0;
    for (uint32_t j = 0; j < J; j++) {
        const uint8_t *p = b + os + (size_t)j * SKC_JOINT;
        int32_t par = (int32_t)r32(p);
        uint32_t no = r32(p + 4), nl = r32(p + 8);
        if (par < -1 || par >= (int32_t)j) { r = bad(err, "joint parent", j); goto fail; }
        if ((uint64_t)no + nl > nstr) { r = bad(err, "joint name outside the strings", j); goto fail; }
        char *nm = sk_asset_alloc(as, (size_t)nl + 1);
        if (!nm) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto fail; }
        memcpy(nm, b + ostr + no, nl);
        names[j] = nm;
        parents[j] = par;
        float v[10];
        for (int k = 0; k < 10; k++) {
            v[k] = rf(p + 12 + 4 * k);
            if (!(v[k] >= -1e30f && v[k] <= 1e30f)) { r = bad(err, "joint rest transform", j); goto fail; }
        }
        rest[j].t = sk_vec3_make(v[0], v[1], v[2]);
        rest[j].r = sk_quat_make(v[3], v[4], v[5], v[6]);
        rest[j].s = sk_vec3_make(v[7], v[8], v[9]);
        wc[j] = r32(p + 52);
        wsum += wc[j];
        n2j[j] = j2n[j] = j;
        jm[j] = jsk[j] = -1;
        if (par < 0) roots[nroots++] = j;
    }
    if (wsum != W) { r = bad(err, "morph weights do not add up", W); goto fail; }
    for (uint32_t w = 0; w < W; w++) {
        rw[w] = rf(b + os + (size_t)J * SKC_JOINT + 4u * w);
        if (!(rw[w] >= -1e30f && rw[w] <= 1e30f)) { r = bad(err, "rest weight", w); goto fail; }
    }
    sk_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = J, sd.parents = parents, sd.names = names, sd.rest = rest, sd.weight_counts = wc, sd.rest_weights = rw;
    if ((r = sk_skeleton_create(&sd, a, &as->skeleton, err)) != SK_OK) goto fail;
    as->node_count = J, as->node_to_joint = n2j, as->joint_to_node = j2n, as->joint_mesh = jm, as->joint_skin = jsk;
    scene->name = "", scene->root_count = nroots, scene->roots = roots;
    as->scene_count = 1, as->scenes = scene, as->default_scene = 0, as->generator = "";
    as->clips = clips;
    for (uint32_t i = 0; i < C; i++) {
        const uint8_t *t = b + ot + (size_t)i * SKC_CLIP;
        uint32_t co = r32(t), cs = r32(t + 4), kind = r32(t + 8), no = r32(t + 12), nl = r32(t + 16);
        if (co < SKC_HEADER || (uint64_t)co + cs > size || kind > 1 || r32(t + 20)) { r = bad(err, "clip outside the file", i); goto fail; }
        if ((uint64_t)no + nl > nstr) { r = bad(err, "clip name outside the strings", i); goto fail; }
        nbuf = sk_alloc(a, (size_t)nl + 1);
        if (!nbuf) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto fail; }
        memcpy(nbuf, b + ostr + no, nl);
        if (kind == 1) r = sk_clip_from_compressed(nbuf, b + co, cs, !in_place, a, &clips[i], err);
        else r = load_keys(b + co, cs, nbuf, a, &clips[i], err);
        sk_free(a, nbuf, (size_t)nl + 1);
        nbuf = NULL;
        if (r != SK_OK) goto fail;
        as->clip_count = i + 1;
        if (sk_clip_joint_span(clips[i]) > J) { r = bad(err, "clip targets a joint the skeleton does not have", i); goto fail; }
    }
    if ((r = sk_asset_validate(as, err)) != SK_OK) goto fail;
    if ((r = check_world_range(as, a, err)) != SK_OK) goto fail;
    if (mpu_out) *mpu_out = mpu;
    *out = as;
    return SK_OK;
fail:
    sk_asset_destroy(as);
    return r;
}

sk_result sk_skc_load_file(const char *path, const sk_file_io *io, const sk_allocator *alloc, sk_asset **out,
                           double *mpu, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skc_load_file: out is NULL");
    *out = NULL;
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skc_load_file: path is NULL");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    void *buf = NULL;
    size_t size = 0;
    sk_result r = sk_file_read(io, path, SK_SKC_MAX_BYTES, a, &buf, &size, err);
    if (r != SK_OK) return r;
    sk_error e2 = {0};
    r = sk_skc_load_memory(buf, size, false, a, out, mpu, &e2);
    sk_file_release(io, a, buf, size);
    if (r != SK_OK) sk_error_set(err, r, "%s: %s", path, e2.message);
    return r;
}
