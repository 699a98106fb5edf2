/* The packed clip format (io/skc.h): a small .skc (a synthetic BVH's clip
 * compressed, and the same clip kept as keys) round-trips; loaded in place
 * it samples like the clips it was written from; every truncation and every
 * byte flip is rejected or, when the flip keeps a valid checksum (the test
 * recomputes it, to reach the checks behind it), loads and samples without a
 * read outside the buffer (each attempt gets its own exact-size heap copy, so
 * ASan sees any overread). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 4-joint BVH with FRAMES frames of smooth motion (units: centimetres). */
enum { FRAMES = 40 };
static char *synthetic_bvh(void) {
    size_t cap = 65536, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n,
                          "HIERARCHY\nROOT hip\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                          " JOINT spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                          "  JOINT head\n  {\n   OFFSET 0 10 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
                          "   End Site\n   {\n    OFFSET 0 5 0\n   }\n  }\n }\n"
                          " JOINT leg\n {\n  OFFSET 5 -10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                          "  End Site\n  {\n   OFFSET 0 -10 0\n  }\n }\n}\n"
                          "MOTION\nFrames: %d\nFrame Time: 0.0333333\n", FRAMES);
    for (int f = 0; f < FRAMES; f++) {
        double t = f / 30.0;
        n += (size_t)snprintf(s + n, cap - n, "%.4f 90 %.4f %.4f %.4f %.4f 20 %.4f 0 %.4f %.4f 0 %.4f 0 0\n", 3 * t,
                              sin(t), 30 * sin(2 * t), 10 * cos(t), t * 40, 15 * sin(3 * t), 25 * sin(t), 5 * t,
                              40 * sin(4 * t));
    }
    return s;
}

/* The checksum made to match again (the library's own: zlib's CRC-32, checked
 * against a CRC-32 computed here bit by bit in test_checksum). */
static void crc_fix(uint8_t *b, size_t n) {
    uint32_t c = sk_skc_checksum(b, n);
    b[16] = (uint8_t)c, b[17] = (uint8_t)(c >> 8), b[18] = (uint8_t)(c >> 16), b[19] = (uint8_t)(c >> 24);
}

/* Loads a heap copy of exactly n bytes; when it loads, samples every clip forward, backward and at odd times. */
static int try_load(const uint8_t *data, size_t n, bool in_place) {
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, data, n);
    sk_asset *as = NULL;
    sk_error err = {0};
    sk_result r = sk_skc_load_memory(copy, n, in_place, NULL, &as, NULL, &err);
    if (r == SK_OK) {
        const sk_skeleton *s = as->skeleton;
        sk_transform *l = calloc(s->joint_count, sizeof *l);
        float *w = calloc(s->weight_total + 1, sizeof *w);
        for (uint32_t c = 0; c < as->clip_count; c++) {
            double d = sk_clip_duration(as->clips[c]);
            const double ts[] = {-1.0, 0.0, 0.3 * d, d, 0.999 * d, 1e9, -1e9};
            for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
                assert_int_equal(sk_clip_sample(as->clips[c], s, ts[i], SK_LOOP_REPEAT, SK_POSE_OF(s, l, w), NULL), SK_OK);
            sk_track_info ti;
            if (sk_clip_track_count(as->clips[c]) && sk_clip_track_info(as->clips[c], 0, &ti)) {
                float *tm = calloc(ti.key_count, sizeof *tm), *v = calloc((size_t)ti.key_count * ti.width * 3, sizeof *v);
                assert_true(sk_clip_track_keys(as->clips[c], 0, tm, v));
                free(tm);
                free(v);
            }
        }
        free(l);
        free(w);
        sk_asset_destroy(as);
    } else {
        assert_true(err.message[0] != 0); /* a clear error */
    }
    free(copy);
    return r == SK_OK;
}

static void make_skc(uint8_t **out, size_t *size, sk_asset **src, sk_clip **cc) {
    char *text = synthetic_bvh();
    sk_error err = {0};
    assert_int_equal(sk_bvh_load_memory(text, strlen(text), "synthetic", NULL, src, &err), SK_OK);
    free(text);
    sk_compress_options o = {0.01, 3.0, 0.01, 0, 0, 0};
    sk_compress_stats st;
    assert_int_equal(sk_clip_compress((*src)->clips[0], (*src)->skeleton, &o, NULL, cc, &st, &err), SK_OK);
    sk_clip *clips[2] = {*cc, (*src)->clips[0]};
    void *data = NULL;
    assert_int_equal(sk_skc_write_memory((*src)->skeleton, clips, 2, 0.01, NULL, &data, size, &err), SK_OK);
    *out = data;
}

/* The .skc of make_skc, made once per test (cmocka setup and teardown). */
typedef struct skc_case {
    uint8_t *data;
    size_t size;
    sk_asset *src;
    sk_clip *cc;
} skc_case;
static int case_setup(void **state) {
    skc_case *k = calloc(1, sizeof *k);
    if (!k) return -1;
    make_skc(&k->data, &k->size, &k->src, &k->cc);
    *state = k;
    return 0;
}
static int case_teardown(void **state) {
    skc_case *k = *state;
    free(k->data);
    sk_clip_destroy(k->cc);
    sk_asset_destroy(k->src);
    free(k);
    return 0;
}

/* The stored checksum is the CRC-32 (IEEE 802.3, reflected, as zlib and
 * PNG) of the file without bytes 16..19, computed here bit by bit: the
 * standard check value of "123456789" is 0xCBF43926. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n, bool skip_field) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        if (skip_field && i >= 16 && i < 20) continue;
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void test_checksum(void **state) {
    (void)state;
    const uint8_t check[] = "123456789";
    assert_int_equal(crc_bitwise(check, 9, false), 0xCBF43926u);
    uint8_t buf[64];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof buf; n++) assert_int_equal(sk_skc_checksum(buf, n), crc_bitwise(buf, n, true));
    assert_int_equal(sk_skc_checksum(NULL, 5), 0u);
}

static void test_round_trip(void **state) {
    const skc_case *fx = *state;
    const uint8_t *data = fx->data;
    size_t size = fx->size;
    sk_asset *src = fx->src;
    sk_clip *cc = fx->cc;
    size_t cs = 0;
    assert_true(sk_clip_compressed_data(cc, NULL, &cs));
    printf("synthetic .skc: %zu bytes (compressed clip %zu bytes)\n", size, cs);
    for (int in_place = 0; in_place < 2; in_place++) {
        sk_asset *as = NULL;
        sk_error err = {0};
        double mpu = 0;
        assert_int_equal(sk_skc_load_memory(data, size, in_place, NULL, &as, &mpu, &err), SK_OK);
        assert_true(mpu == 0.01);
        assert_int_equal(as->clip_count, 2);
        assert_true(sk_clip_is_compressed(as->clips[0]));
        assert_false(sk_clip_is_compressed(as->clips[1]));
        const sk_skeleton *s = as->skeleton;
        assert_int_equal(s->joint_count, src->skeleton->joint_count);
        for (uint32_t j = 0; j < s->joint_count; j++) assert_string_equal(s->names[j], src->skeleton->names[j]);
        sk_transform a[8], b[8];
        /* one cursor for both clips in turn (the compressed clip's cache of decoded frames is
         * recognised as not its own after the other clip wrote key indices over it) */
        size_t cn = sk_clip_cursor_cache_size(as->clips[0]) > sk_clip_cursor_cache_size(as->clips[1])
                        ? sk_clip_cursor_cache_size(as->clips[0])
                        : sk_clip_cursor_cache_size(as->clips[1]);
        uint32_t *cursor = calloc(cn, sizeof *cursor);
        assert_non_null(cursor);
        for (int i = 0; i <= 200; i++) {
            double t = (i < 100 ? i : 200 - i) * sk_clip_duration(cc) / 100.0; /* forward, then backward */
            for (uint32_t c = 0; c < 2; c++) {
                const sk_clip *ref = c == 0 ? cc : src->clips[0];
                assert_int_equal(sk_clip_sample(ref, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, a, NULL), NULL), SK_OK);
                assert_int_equal(sk_clip_sample_cursor(as->clips[c], s, t, SK_LOOP_CLAMP, cursor, cn, SK_POSE_OF(s, b, NULL), NULL), SK_OK);
                if (c == 0) assert_memory_equal(a, b, s->joint_count * sizeof(sk_transform)); /* the same bits */
                else /* keys: the builder normalises rotation keys again (within an ulp) */
                    for (uint32_t j = 0; j < s->joint_count; j++) {
                        const float *x = &a[j].t.x, *y = &b[j].t.x;
                        for (int k = 0; k < 10; k++) assert_true(fabsf(x[k] - y[k]) <= 1e-6f * fmaxf(1.0f, fabsf(x[k])));
                    }
            }
        }
        free(cursor);
        sk_asset_destroy(as);
    }
}

static void test_hostile(void **state) {
    const skc_case *fx = *state;
    const uint8_t *data = fx->data;
    size_t size = fx->size;
    int loaded = 0, tried = 0;
    /* every truncation: as is, and with the size field and checksum patched to match */
    uint8_t *m = malloc(size);
    for (size_t n = 0; n < size; n++) {
        assert_false(try_load(data, n, false));
        tried++;
        if (n >= 64) {
            memcpy(m, data, n);
            m[12] = (uint8_t)n, m[13] = (uint8_t)(n >> 8), m[14] = (uint8_t)(n >> 16), m[15] = (uint8_t)(n >> 24);
            crc_fix(m, n);
            loaded += try_load(m, n, n & 1);
            tried++;
        }
    }
    /* every byte flipped three ways: as is (the checksum rejects it) and with the checksum recomputed */
    const uint8_t flips[3] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < size; i++)
        for (int f = 0; f < 3; f++) {
            memcpy(m, data, size);
            m[i] ^= flips[f];
            if (i >= 20 || i < 16) assert_false(try_load(m, size, false)); /* bytes 16-19 are the checksum itself */
            crc_fix(m, size);
            loaded += try_load(m, size, (i + (size_t)f) & 1);
            tried += 2;
        }
    printf(".skc hostile: %zu bytes, %d loads tried, %d loaded (flips the checks cannot tell from data), the rest rejected\n",
           size, tried, loaded);
    assert_int_equal(tried, (int)(size + (size - 64) + 6 * size));
    free(m);
}

/* A compressed clip of an older format version (1: its error was measured
 * with another interpolation; 2: another layout; 3: the animated tracks'
 * data in track order) is refused with a message that says what to do, in a
 * .skc and on its own; the current version loads. */
static void test_old_version(void **state) {
    const skc_case *fx = *state;
    const uint8_t *data = fx->data;
    size_t size = fx->size;
    sk_clip *cc = fx->cc;
    const void *blob = NULL;
    size_t bs = 0;
    assert_true(sk_clip_compressed_data(cc, &blob, &bs));
    uint8_t *m = malloc(size), *one = malloc(bs);
    int found = 0;
    memcpy(m, data, size);
    for (size_t i = 0; i + 8 <= size; i++)
        if (memcmp(m + i, "SKCB", 4) == 0) {
            assert_int_equal(m[i + 4], 4); /* little-endian u32 version */
            m[i + 4] = 3, found++;
        }
    assert_int_equal(found, 1);
    crc_fix(m, size);
    sk_asset *as = NULL;
    sk_error err = {0};
    assert_int_equal(sk_skc_load_memory(m, size, false, NULL, &as, NULL, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "version 3, this build reads versions 4 to 5 (compress the source again)"));
    assert_null(as);
    memcpy(one, blob, bs);
    sk_clip *c = NULL;
    for (uint8_t v = 1; v <= 3; v++) {
        one[4] = v;
        assert_int_equal(sk_clip_from_compressed("old", one, bs, true, NULL, &c, &err), SK_ERR_UNSUPPORTED);
        assert_null(c);
    }
    one[4] = 6; /* after this build's */
    assert_int_equal(sk_clip_from_compressed("newer", one, bs, true, NULL, &c, &err), SK_ERR_UNSUPPORTED);
    assert_null(c);
    one[4] = 5; /* version 5 without step tracks: version 4's layout */
    assert_int_equal(sk_clip_from_compressed("v5", one, bs, true, NULL, &c, &err), SK_OK);
    sk_clip_destroy(c);
    one[4] = 4;
    assert_int_equal(sk_clip_from_compressed("new", one, bs, true, NULL, &c, &err), SK_OK);
    sk_clip_destroy(c);
    free(one);
    free(m);
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24); }
static void wrf(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    wr32(p, u);
}

/* The blob layout as docs/compression.md and clip_internal.h describe
 * version 4, walked here on its own: a 40-byte header, a word per track, 16
 * bytes per constant, 16 (rotation) or 24 bytes of clip range per animated
 * track, the rotations' first (data order), then per segment A bit rates,
 * 6A range bytes and its frames' bits (3 x SK_CC_BITS[rate] per track per
 * frame), then 8 zero bytes: the parts add up to the blob's size. The root's
 * translation range comes after the rotations' and holds its keys. Then
 * blobs made here by hand: constant tracks only (no segments) load and
 * sample, also with the largest frame count; one frame more, a byte more,
 * or a track word with a stray bit is refused. */
static void test_blob_layout(void **state) {
    static const unsigned bits[16] = {0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 19, 23};
    const skc_case *fx = *state;
    sk_asset *src = fx->src;
    sk_clip *cc = fx->cc;
    const uint8_t *b = NULL;
    size_t bs = 0;
    assert_true(sk_clip_compressed_data(cc, (const void **)&b, &bs));
    assert_int_equal(rd32(b + 4), 4);
    assert_int_equal(rd32(b + 8), bs);
    uint32_t N = rd32(b + 12), T = rd32(b + 24), A = rd32(b + 28), L = rd32(b + 32), nrot = 0;
    assert_int_equal(rd32(b + 36), 0);
    assert_int_equal(N, FRAMES);
    size_t o = 40 + 4u * (size_t)T + 16u * (size_t)(T - A);
    for (uint32_t i = 0; i < T; i++) {
        uint32_t w = rd32(b + 40 + 4u * i);
        if (!(w >> 26 & 1u)) continue;
        nrot += (w >> 24 & 3u) == 1u;
        o += (w >> 24 & 3u) == 1u ? 16u : 24u;
    }
    assert_true(A >= 4 && nrot >= 3); /* the root's translation and the rotations move */
    /* data order: the first translation range follows the rotations' (nrot x 16 bytes): the
     * root's (the BVH's only position channels), its minimum and extent around the source keys */
    {
        const uint8_t *tr = b + 40 + 4u * (size_t)T + 16u * (size_t)(T - A) + 16u * nrot;
        const sk_clip *raw = src->clips[0];
        uint32_t ti = 0;
        sk_track_info info;
        while (sk_clip_track_info(raw, ti, &info) && !(info.joint == 0 && info.path == SK_PATH_TRANSLATION)) ti++;
        assert_true(sk_clip_track_info(raw, ti, &info));
        float *kv = malloc(3 * sizeof(float) * info.key_count);
        assert_true(sk_clip_track_keys(raw, ti, NULL, kv));
        for (int k = 0; k < 3; k++) {
            float lo = kv[k], hi = kv[k], mn, ex;
            for (uint32_t f = 1; f < info.key_count; f++) lo = fminf(lo, kv[3 * f + k]), hi = fmaxf(hi, kv[3 * f + k]);
            memcpy(&mn, tr + 4 * k, 4), memcpy(&ex, tr + 12 + 4 * k, 4);
            assert_true(mn <= lo && mn + ex >= hi && ex <= (hi - lo) * 1.01f + 1e-6f);
        }
        free(kv);
    }
    for (uint32_t s = 0; s * L < N; s++) {
        uint64_t F = 0, frames = N - s * L < L ? N - s * L : L;
        for (uint32_t a = 0; a < A; a++) F += 3u * bits[b[o + a] & 15u];
        o += 7u * (size_t)A + (size_t)((frames * F + 7) / 8);
    }
    assert_int_equal(o + 8, bs);
    for (int k = 0; k < 8; k++) assert_int_equal(b[bs - 8 + k], 0);

    /* one constant rotation track (joint 1), no animated ones */
    uint8_t m[40 + 4 + 16 + 8 + 1];
    memset(m, 0, sizeof m);
    size_t ms = sizeof m - 1;
    memcpy(m, "SKCB", 4), wr32(m + 4, 4), wr32(m + 8, (uint32_t)ms), wr32(m + 12, 5), wrf(m + 16, 30.0f);
    wrf(m + 20, 4.0f / 30.0f), wr32(m + 24, 1), wr32(m + 28, 0), wr32(m + 32, 16);
    wr32(m + 40, 1u | 1u << 24);
    const float q[4] = {0.6f, 0.0f, 0.0f, 0.8f};
    for (int k = 0; k < 4; k++) wrf(m + 44 + 4 * k, q[k]);
    sk_error err = {0};
    sk_clip *c = NULL;
    const sk_skeleton *sk = src->skeleton;
    sk_transform *l = calloc(sk->joint_count, sizeof *l);
    const uint32_t counts[2] = {5, 10000001u};
    for (int i = 0; i < 2; i++) {
        wr32(m + 12, counts[i]), wrf(m + 20, (float)(counts[i] - 1) / 30.0f);
        assert_int_equal(sk_clip_from_compressed("constant", m, ms, true, NULL, &c, &err), SK_OK);
        assert_true(sk_clip_memory_size(c) < 1024); /* nothing per frame or segment */
        assert_int_equal(sk_clip_sample(c, sk, 0.1 + i * 1000.0, SK_LOOP_REPEAT, SK_POSE_OF(sk, l, NULL), &err), SK_OK);
        assert_memory_equal(&l[1].r, q, sizeof q);
        sk_clip_destroy(c);
    }
    wr32(m + 12, 10000002u);
    assert_int_equal(sk_clip_from_compressed("constant", m, ms, true, NULL, &c, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "bad counts"));
    wr32(m + 12, 5), wr32(m + 8, (uint32_t)ms + 1);
    assert_int_equal(sk_clip_from_compressed("constant", m, ms + 1, true, NULL, &c, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "size does not match its segments"));
    wr32(m + 8, (uint32_t)ms), wr32(m + 40, 1u | 1u << 24 | 1u << 28);
    assert_int_equal(sk_clip_from_compressed("constant", m, ms, true, NULL, &c, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "bad track"));
    assert_null(c);
    /* bit 27, a step track (version 5), in a blob that counts none */
    wr32(m + 40, 1u | 1u << 24 | 1u << 27);
    assert_int_equal(sk_clip_from_compressed("constant", m, ms, true, NULL, &c, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "bad step track"));
    assert_null(c);
    free(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_checksum),
                                       cmocka_unit_test_setup_teardown(test_round_trip, case_setup, case_teardown),
                                       cmocka_unit_test_setup_teardown(test_hostile, case_setup, case_teardown),
                                       cmocka_unit_test_setup_teardown(test_old_version, case_setup, case_teardown),
                                       cmocka_unit_test_setup_teardown(test_blob_layout, case_setup, case_teardown)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
