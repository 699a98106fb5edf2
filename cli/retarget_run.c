/* skelanim: the retargeting the commands share (retarget_run.h). */
#include "retarget_run.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The legs of a humanoid map: upper leg, lower leg, foot, toes per side. */
static bool legs_of(const sk_humanoid_map *m, sk_leg_desc legs[2]) {
    static const sk_humanoid_bone bones[2][4] = {
        {SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT, SK_HUMANOID_LEFT_TOES},
        {SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT, SK_HUMANOID_RIGHT_TOES}};
    if (!m) return false;
    for (int s = 0; s < 2; s++) {
        memset(&legs[s], 0, sizeof legs[s]);
        snprintf(legs[s].name, sizeof legs[s].name, "%s", s ? "right" : "left");
        legs[s].hip = m->joint[bones[s][0]], legs[s].knee = m->joint[bones[s][1]];
        legs[s].ankle = m->joint[bones[s][2]], legs[s].toe = m->joint[bones[s][3]];
        if (legs[s].hip < 0 || legs[s].knee < 0 || legs[s].ankle < 0) return false;
    }
    return true;
}

/* The joint pairs of a JSON map file into pairs (names point into *text, freed by the caller). */
static sk_result load_map(const char *path, const sk_skeleton *source, const sk_skeleton *target, char **text,
                          sk_retarget_pair **pairs, uint32_t *count, sk_error *err);

/* The rest pose of skel standing on y = 0: a rest pose whose lowest joint is
 * below the ground (a .bvh skeleton, whose root is at the origin at rest)
 * is raised by the skeletons' roots so that it stands on it. The
 * retargeter measures the hips' motion from their rest position, so a
 * source rest pose at the wrong height lifts the target by that much. */
static bool ground_rest(const sk_skeleton *s, sk_transform *local) {
    sk_mat4 *m = calloc(s->joint_count ? s->joint_count : 1, sizeof *m);
    if (!m || sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL) != SK_OK ||
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL) != SK_OK) {
        free(m);
        return false;
    }
    float lowest = 0.0f;
    for (uint32_t j = 0; j < s->joint_count; j++) lowest = fminf(lowest, m[j].m[13]);
    for (uint32_t j = 0; j < s->joint_count; j++)
        if (s->parents[j] < 0) local[j].t.y -= lowest;
    free(m);
    return true;
}

sk_result cli_retarget_open(const sk_asset *source, const sk_asset *target, const char *map_path, cli_retarget *out,
                            sk_error *err) {
    memset(out, 0, sizeof *out);
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = source->skeleton, d.target = target->skeleton;
    char *text = NULL;
    sk_retarget_pair *pairs = NULL;
    uint32_t npairs = 0;
    sk_result r = SK_OK;
    if (map_path) r = load_map(map_path, d.source, d.target, &text, &pairs, &npairs, err);
    if (r != SK_OK) return r;
    d.pairs = pairs, d.pair_count = npairs;
    sk_transform *rest = calloc(d.source->joint_count ? d.source->joint_count : 1, sizeof *rest);
    sk_pose rest_pose = {rest, NULL, d.source->joint_count, 0};
    if (rest && ground_rest(d.source, rest)) d.source_rest = &rest_pose;
    r = sk_retarget_create(&d, NULL, &out->rt, err);
    free(rest);
    free(pairs);
    free(text);
    if (r != SK_OK) return r;
    out->source = d.source, out->target = d.target;
    for (uint32_t j = 0; j < d.target->joint_count; j++) out->mapped += sk_retarget_source_of(out->rt, j) >= 0;
    if (legs_of(sk_retarget_map(out->rt, 0), out->source_legs) && legs_of(sk_retarget_map(out->rt, 1), out->target_legs))
        out->leg_count = 2;
    return SK_OK;
}

void cli_retarget_close(cli_retarget *r) {
    sk_retarget_destroy(r->rt);
    memset(r, 0, sizeof *r);
}

sk_result cli_retarget_bake(const cli_retarget *r, const sk_clip *source_clip, bool contacts, sk_clip **out,
                            cli_retarget_info *info, sk_error *err) {
    cli_retarget_info in;
    memset(&in, 0, sizeof in);
    double t0 = cli_thread_cpu_now();
    sk_clip *baked = NULL;
    sk_result res = sk_retarget_clip(r->rt, source_clip, NULL, NULL, &baked, err);
    double t1 = cli_thread_cpu_now();
    in.retarget_s = t1 - t0;
    if (res != SK_OK) return res;
    if (contacts && r->leg_count == 2) {
        uint32_t n = 0;
        res = sk_contacts_find(r->source, source_clip, r->source_legs, 2, NULL, NULL, NULL, 0, &n, err);
        sk_contact *c = NULL;
        if (res == SK_ERR_LIMIT || (res == SK_OK && n > 0)) {
            c = calloc(n, sizeof *c);
            res = c ? sk_contacts_find(r->source, source_clip, r->source_legs, 2, NULL, NULL, c, n, &n, err)
                    : sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        sk_clip *restored = NULL;
        sk_contact_restore_stats st;
        memset(&st, 0, sizeof st);
        if (res == SK_OK) res = sk_contacts_restore(r->target, baked, r->target_legs, 2, c, n, NULL, NULL, &restored, &st, err);
        free(c);
        if (res != SK_OK) {
            sk_clip_destroy(baked);
            return res;
        }
        sk_clip_destroy(baked);
        baked = restored;
        in.contacts = n, in.max_error = st.max_error, in.unreachable = st.unreachable;
    }
    in.contacts_s = cli_thread_cpu_now() - t1;
    *out = baked;
    if (info) *info = in;
    return SK_OK;
}

/* A map file: {"pairs": {"SOURCE_JOINT": "TARGET_JOINT", ...}} or
 * {"pairs": [["SOURCE_JOINT", "TARGET_JOINT"], ...]}. */
static sk_result load_map(const char *path, const sk_skeleton *source, const sk_skeleton *target, char **text,
                          sk_retarget_pair **pairs, uint32_t *count, sk_error *err) {
    (void)source, (void)target;
    *text = NULL, *pairs = NULL, *count = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return sk_error_set(err, SK_ERR_IO, "%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || size > (1l << 24)) {
        fclose(f);
        return sk_error_set(err, SK_ERR_LIMIT, "%s: not a map file (size)", path);
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(buf);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot read", path);
    }
    fclose(f);
    buf[size] = 0;
    cJSON *root = cJSON_ParseWithLength(buf, (size_t)size);
    const cJSON *list = root ? cJSON_GetObjectItemCaseSensitive(root, "pairs") : NULL;
    sk_result r = SK_OK;
    if (!root) r = sk_error_set(err, SK_ERR_PARSE, "%s: not JSON", path);
    else if (!cJSON_IsObject(list) && !cJSON_IsArray(list))
        r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: expected {\"pairs\": {\"SOURCE_JOINT\": \"TARGET_JOINT\", ...}}", path);
    uint32_t n = r == SK_OK ? (uint32_t)cJSON_GetArraySize(list) : 0;
    /* Names are copied into one block (strings of the parsed tree die with it). */
    size_t need = 0;
    const cJSON *it;
    if (r == SK_OK)
        cJSON_ArrayForEach(it, list) {
            const char *s = cJSON_IsArray(list) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 0)) : it->string;
            const char *t = cJSON_IsArray(list) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 1)) : cJSON_GetStringValue(it);
            if (!s || !t || (cJSON_IsArray(list) && cJSON_GetArraySize(it) != 2)) {
                r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: pair %u is not two joint names", path, (unsigned)(need ? 0 : 0));
                break;
            }
            need += strlen(s) + strlen(t) + 2;
        }
    char *names = r == SK_OK ? malloc(need + 1) : NULL;
    sk_retarget_pair *p = r == SK_OK ? calloc(n ? n : 1, sizeof *p) : NULL;
    if (r == SK_OK && (!names || !p)) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    uint32_t k = 0;
    char *w = names;
    if (r == SK_OK)
        cJSON_ArrayForEach(it, list) {
            const char *s = cJSON_IsArray(list) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 0)) : it->string;
            const char *t = cJSON_IsArray(list) ? cJSON_GetStringValue(cJSON_GetArrayItem(it, 1)) : cJSON_GetStringValue(it);
            p[k].source = w, w += sprintf(w, "%s", s) + 1;
            p[k].target = w, w += sprintf(w, "%s", t) + 1;
            k++;
        }
    cJSON_Delete(root);
    free(buf);
    if (r != SK_OK) {
        free(names);
        free(p);
        return r;
    }
    *text = names, *pairs = p, *count = k;
    return SK_OK;
}
