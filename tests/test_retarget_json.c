/* Retargeting maps from JSON (io/retarget_json.h): the document parsed
 * (pairs, bones, root scale), applied to the mannequin so that its pairs and
 * bones override the humanoid profile (checked through
 * sk_retarget_source_of), loaded from a file, and bad documents refused with
 * their JSON path or the missing joint's name. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sk_retarget_map_json *parse(const char *text, sk_result want, const char *in_message) {
    sk_retarget_map_json *m = NULL;
    sk_error err = {0};
    sk_result r = sk_retarget_map_json_parse(text, strlen(text), NULL, &m, &err);
    if (r != want) fail_msg("%s: got %s (%s), want %s", text, sk_result_string(r), err.message, sk_result_string(want));
    if (in_message && !strstr(err.message, in_message)) fail_msg("%s: message '%s' lacks '%s'", text, err.message, in_message);
    if (r != SK_OK) assert_null(m);
    return m;
}

static void test_parse(void **state) {
    (void)state;
    sk_retarget_map_json *m =
        parse("{\"map\": {\"spine\": \"chest\", \"mixamorig:Head\": \"head\"}, \"source\": {\"left_foot\": \"LeftFoot\"},"
              " \"target\": {\"Left_Toes\": \"\"}, \"root_scale\": 0.5}",
              SK_OK, NULL);
    assert_int_equal(m->pair_count, 2);
    assert_string_equal(m->pairs[0].source, "spine");
    assert_string_equal(m->pairs[0].target, "chest");
    assert_string_equal(m->pairs[1].source, "mixamorig:Head");
    assert_string_equal(m->source_bone[SK_HUMANOID_LEFT_FOOT], "LeftFoot");
    assert_string_equal(m->target_bone[SK_HUMANOID_LEFT_TOES], "");
    assert_null(m->target_bone[SK_HUMANOID_HIPS]);
    assert_true(m->has_root_scale && m->root_scale == 0.5f);
    sk_retarget_map_json_destroy(m);
    /* Bad documents. */
    int cases = 0;
    struct { const char *text; sk_result code; const char *msg; } bad[] = {
        {"{\"map\": {\"a\": \"b\",}}", SK_ERR_PARSE, "byte"},
        {"[]", SK_ERR_INVALID_DATA, "expected an object"},
        {"{}", SK_ERR_INVALID_DATA, "empty"},
        {"{\"mapp\": {}}", SK_ERR_INVALID_DATA, "mapp"},
        {"{\"map\": {\"a\": 3}}", SK_ERR_INVALID_DATA, "/map"},
        {"{\"map\": {\"a\": \"\"}}", SK_ERR_INVALID_DATA, "empty joint name"},
        {"{\"map\": {\"a\": \"x\", \"b\": \"x\"}}", SK_ERR_INVALID_DATA, "target joint named twice"},
        {"{\"map\": {\"a\": \"x\", \"a\": \"y\"}}", SK_ERR_INVALID_DATA, "source joint named twice"},
        {"{\"source\": {\"left_tail\": \"x\"}}", SK_ERR_INVALID_DATA, "left_tail"},
        {"{\"target\": {\"hips\": \"a\", \"HIPS\": \"b\"}}", SK_ERR_INVALID_DATA, "twice"},
        {"{\"target\": {\"hips\": 1}}", SK_ERR_INVALID_DATA, "/target"},
        {"{\"root_scale\": -1}", SK_ERR_INVALID_DATA, "root_scale"},
        {"{\"root_scale\": \"big\"}", SK_ERR_INVALID_DATA, "root_scale"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) parse(bad[k].text, bad[k].code, bad[k].msg), cases++;
    /* Every prefix of a good document: an error or a document, never a crash. */
    const char *good = "{\"map\": {\"spine\": \"chest\"}, \"target\": {\"hips\": \"hips\"}, \"root_scale\": 1}";
    for (size_t n = 0; n < strlen(good); n++) {
        sk_retarget_map_json *p = NULL;
        sk_error err;
        sk_result r = sk_retarget_map_json_parse(good, n, NULL, &p, &err);
        assert_true(r != SK_OK);
        assert_null(p);
        cases++;
    }
    printf("bad documents: %d\n", cases);
    assert_int_equal(cases, 13 + (int)strlen(good));
}

static void test_apply(void **state) {
    (void)state;
    sk_asset *mq = NULL;
    sk_error err;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &mq, NULL), SK_OK);
    const sk_skeleton *s = mq->skeleton;
    int32_t spine = sk_skeleton_find(s, "spine"), chest = sk_skeleton_find(s, "chest"), foot_l = sk_skeleton_find(s, "foot_l"),
            toe_l = sk_skeleton_find(s, "toe_l");
    /* Without a map: each joint from itself. */
    sk_retarget_desc d = {0};
    d.source = s, d.target = s;
    sk_retarget *rt = NULL;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_OK);
    assert_int_equal(sk_retarget_source_of(rt, (uint32_t)chest), chest);
    assert_int_equal(sk_retarget_source_of(rt, (uint32_t)toe_l), toe_l);
    sk_retarget_destroy(rt);
    /* A file: pairs and bones override. */
    char path[1024];
    snprintf(path, sizeof path, "%s/retarget_map_%d.json", getenv("SK_BINARY_DIR") ? getenv("SK_BINARY_DIR") : ".", (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"map\": {\"spine\": \"chest\"}, \"target\": {\"left_foot\": \"toe_l\", \"left_toes\": \"\"}, \"root_scale\": 2}", f);
    fclose(f);
    sk_retarget_map_json *m = NULL;
    if (sk_retarget_map_json_load(path, NULL, NULL, &m, &err) != SK_OK) fail_msg("%s", err.message);
    remove(path);
    sk_humanoid_map ms, mt;
    if (sk_retarget_map_json_apply(m, &d, &ms, &mt, &err) != SK_OK) fail_msg("%s", err.message);
    assert_null(d.source_map);
    assert_ptr_equal(d.target_map, &mt);
    assert_int_equal(mt.joint[SK_HUMANOID_LEFT_FOOT], toe_l);
    assert_int_equal(mt.how[SK_HUMANOID_LEFT_FOOT], SK_HUMANOID_BY_USER);
    assert_int_equal(mt.joint[SK_HUMANOID_LEFT_TOES], -1);
    assert_int_equal(d.pair_count, 1);
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    assert_int_equal(sk_retarget_source_of(rt, (uint32_t)chest), spine); /* the pair */
    assert_int_equal(sk_retarget_source_of(rt, (uint32_t)toe_l), foot_l); /* the bone */
    assert_int_equal(sk_retarget_source_of(rt, (uint32_t)foot_l), -1);
    assert_true(sk_retarget_root_scale(rt) == 2.0f);
    sk_retarget_destroy(rt);
    sk_retarget_map_json_destroy(m);
    /* Joints that do not exist: the name in the message. */
    const char *docs[][2] = {{"{\"map\": {\"spine\": \"Chest_01\"}}", "Chest_01"},
                             {"{\"map\": {\"Spine_01\": \"chest\"}}", "Spine_01"},
                             {"{\"source\": {\"head\": \"skull\"}}", "skull"},
                             {"{\"target\": {\"hips\": \"\"}}", "hips"}};
    for (int k = 0; k < 4; k++) {
        m = NULL;
        assert_int_equal(sk_retarget_map_json_parse(docs[k][0], strlen(docs[k][0]), NULL, &m, &err), SK_OK);
        sk_retarget_desc d2 = {0};
        d2.source = s, d2.target = s;
        sk_result r = sk_retarget_map_json_apply(m, &d2, &ms, &mt, &err);
        assert_true(r == SK_ERR_INVALID_ARGUMENT || r == SK_ERR_INVALID_DATA);
        if (!strstr(err.message, docs[k][1])) fail_msg("'%s' lacks '%s'", err.message, docs[k][1]);
        sk_retarget_map_json_destroy(m);
    }
    /* A file that is not there. */
    assert_int_equal(sk_retarget_map_json_load("/nonexistent/map.json", NULL, NULL, &m, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "/nonexistent/map.json"));
    sk_asset_destroy(mq);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_apply),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
