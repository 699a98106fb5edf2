/* skelanim — retargeting: the humanoid map (naming schemes, topology),
 * its checks, leg length and left/right mirror pairs. See docs/retarget.md. */
#include "anim/retarget_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const bone_names[SK_HUMANOID_BONE_COUNT] = {
    "hips", "spine", "chest", "upper_chest", "neck", "head",
    "left_shoulder", "left_upper_arm", "left_lower_arm", "left_hand",
    "right_shoulder", "right_upper_arm", "right_lower_arm", "right_hand",
    "left_upper_leg", "left_lower_leg", "left_foot", "left_toes",
    "right_upper_leg", "right_lower_leg", "right_foot", "right_toes"};

const char *sk_humanoid_bone_name(sk_humanoid_bone bone) {
    return (unsigned)bone < SK_HUMANOID_BONE_COUNT ? bone_names[bone] : NULL;
}

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool streq_nocase(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return false;
    return *a == *b;
}

int sk_humanoid_bone_from_name(const char *name) {
    if (!name) return -1;
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
        if (streq_nocase(name, bone_names[b])) return b;
    return -1;
}

sk_humanoid_bone sk_humanoid_bone_mirror(sk_humanoid_bone bone) {
    if (bone >= SK_HUMANOID_LEFT_SHOULDER && bone <= SK_HUMANOID_LEFT_HAND) return (sk_humanoid_bone)(bone + 4);
    if (bone >= SK_HUMANOID_RIGHT_SHOULDER && bone <= SK_HUMANOID_RIGHT_HAND) return (sk_humanoid_bone)(bone - 4);
    if (bone >= SK_HUMANOID_LEFT_UPPER_LEG && bone <= SK_HUMANOID_LEFT_TOES) return (sk_humanoid_bone)(bone + 4);
    if (bone >= SK_HUMANOID_RIGHT_UPPER_LEG && bone <= SK_HUMANOID_RIGHT_TOES) return (sk_humanoid_bone)(bone - 4);
    return bone;
}

bool sk_humanoid_bone_required(sk_humanoid_bone bone) {
    switch (bone) {
    case SK_HUMANOID_HIPS: case SK_HUMANOID_SPINE: case SK_HUMANOID_HEAD:
    case SK_HUMANOID_LEFT_UPPER_ARM: case SK_HUMANOID_LEFT_LOWER_ARM: case SK_HUMANOID_LEFT_HAND:
    case SK_HUMANOID_RIGHT_UPPER_ARM: case SK_HUMANOID_RIGHT_LOWER_ARM: case SK_HUMANOID_RIGHT_HAND:
    case SK_HUMANOID_LEFT_UPPER_LEG: case SK_HUMANOID_LEFT_LOWER_LEG: case SK_HUMANOID_LEFT_FOOT:
    case SK_HUMANOID_RIGHT_UPPER_LEG: case SK_HUMANOID_RIGHT_LOWER_LEG: case SK_HUMANOID_RIGHT_FOOT:
        return true;
    default:
        return false;
    }
}

/* ---- Names ------------------------------------------------------------------
 * A joint name is compared without its namespace (everything up to the last
 * ':' or '|') and without a rigify "DEF-"/"ORG-"/"MCH-" prefix, ASCII case
 * ignored. */
void skr_normalize_name(const char *name, char *out, size_t cap) {
    const char *s = name;
    for (const char *p = name; *p; p++)
        if (*p == ':' || *p == '|') s = p + 1;
    if ((ascii_lower((unsigned char)s[0]) == 'd' && ascii_lower((unsigned char)s[1]) == 'e' &&
         ascii_lower((unsigned char)s[2]) == 'f' && s[3] == '-') ||
        (ascii_lower((unsigned char)s[0]) == 'o' && ascii_lower((unsigned char)s[1]) == 'r' &&
         ascii_lower((unsigned char)s[2]) == 'g' && s[3] == '-') ||
        (ascii_lower((unsigned char)s[0]) == 'm' && ascii_lower((unsigned char)s[1]) == 'c' &&
         ascii_lower((unsigned char)s[2]) == 'h' && s[3] == '-'))
        s += 4;
    size_t k = 0;
    for (; s[k] && k + 1 < cap; k++) out[k] = (char)ascii_lower((unsigned char)s[k]);
    out[k] = '\0';
}

/* One naming scheme: per bone the accepted normalised names, '|'-separated
 * (NULL: the scheme has no such bone). Sources in docs/retarget.md. */
typedef struct scheme {
    const char *name;
    const char *bone[SK_HUMANOID_BONE_COUNT];
} scheme;

static const scheme schemes[] = {
    {"skelanim",
     {"hips", "spine", "chest", NULL, "neck", "head", "clavicle_l", "upperarm_l", "forearm_l", "hand_l", "clavicle_r",
      "upperarm_r", "forearm_r", "hand_r", "thigh_l", "shin_l", "foot_l", "toe_l", "thigh_r", "shin_r", "foot_r",
      "toe_r"}},
    {"mixamo",
     {"hips", "spine", "spine1", "spine2", "neck", "head", "leftshoulder", "leftarm", "leftforearm", "lefthand",
      "rightshoulder", "rightarm", "rightforearm", "righthand", "leftupleg", "leftleg", "leftfoot", "lefttoebase",
      "rightupleg", "rightleg", "rightfoot", "righttoebase"}},
    {"cmu",
     {"hips", "lowerback", "spine", "spine1", "neck", "head", "leftshoulder", "leftarm", "leftforearm", "lefthand",
      "rightshoulder", "rightarm", "rightforearm", "righthand", "leftupleg", "leftleg", "leftfoot", "lefttoebase",
      "rightupleg", "rightleg", "rightfoot", "righttoebase"}},
    {"cmu-max", /* CMU's 3ds Max-friendly BVH release (131_*): the upper arm is "shoulder" there */
     {"hips", "lowerback", "chest", "chest2", "lowerneck", "head", "leftcollar", "leftshoulder", "leftelbow",
      "leftwrist", "rightcollar", "rightshoulder", "rightelbow", "rightwrist", "lefthip", "leftknee", "leftankle",
      "lefttoe", "righthip", "rightknee", "rightankle", "righttoe"}},
    {"daz",
     {"hip", "abdomen", "chest", NULL, "neck", "head", "lcollar", "lshldr", "lforearm", "lhand", "rcollar", "rshldr",
      "rforearm", "rhand", "lthigh", "lshin", "lfoot", "ltoe", "rthigh", "rshin", "rfoot", "rtoe"}},
    {"rigify",
     {"spine", "spine.001", "spine.002", "spine.003", "spine.004", "spine.006|spine.005", "shoulder.l", "upper_arm.l",
      "forearm.l", "hand.l", "shoulder.r", "upper_arm.r", "forearm.r", "hand.r", "thigh.l", "shin.l", "foot.l",
      "toe.l", "thigh.r", "shin.r", "foot.r", "toe.r"}},
    {"metarig",
     {"hips", "spine", "chest", NULL, "neck", "head", "shoulder.l", "upper_arm.l", "forearm.l", "hand.l", "shoulder.r",
      "upper_arm.r", "forearm.r", "hand.r", "thigh.l", "shin.l", "foot.l", "toe.l", "thigh.r", "shin.r", "foot.r",
      "toe.r"}},
    {"unity", /* Unity's HumanBodyBones and the VRM humanoid */
     {"hips", "spine", "chest", "upperchest", "neck", "head", "leftshoulder", "leftupperarm", "leftlowerarm", "lefthand",
      "rightshoulder", "rightupperarm", "rightlowerarm", "righthand", "leftupperleg", "leftlowerleg", "leftfoot",
      "lefttoes", "rightupperleg", "rightlowerleg", "rightfoot", "righttoes"}},
    {"unity-lr", /* the same bones with a side suffix (Bandai Namco Research's motion dataset) */
     {"hips", "spine", "chest", "upperchest", "neck", "head", "shoulder_l", "upperarm_l", "lowerarm_l", "hand_l",
      "shoulder_r", "upperarm_r", "lowerarm_r", "hand_r", "upperleg_l", "lowerleg_l", "foot_l", "toes_l", "upperleg_r",
      "lowerleg_r", "foot_r", "toes_r"}},
    {"unreal",
     {"pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head", "clavicle_l", "upperarm_l", "lowerarm_l",
      "hand_l", "clavicle_r", "upperarm_r", "lowerarm_r", "hand_r", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r",
      "calf_r", "foot_r", "ball_r"}},
};
#define SCHEME_COUNT (sizeof schemes / sizeof schemes[0])

/* True when normalised name equals one of the '|'-separated alternatives. */
static bool name_in(const char *norm, const char *alts) {
    size_t n = strlen(norm);
    for (const char *p = alts; *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, norm, n) == 0) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* Maps by one scheme; returns the number of bones matched. */
static int map_by_scheme(const sk_skeleton *skel, const scheme *sc, sk_humanoid_map *m) {
    int matched = 0;
    char norm[128];
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) m->joint[b] = -1, m->how[b] = SK_HUMANOID_UNMAPPED;
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        skr_normalize_name(skel->names[j], norm, sizeof norm);
        if (!norm[0]) continue;
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            if (!sc->bone[b] || m->joint[b] >= 0 || !name_in(norm, sc->bone[b])) continue;
            m->joint[b] = (int32_t)j;
            m->how[b] = SK_HUMANOID_BY_NAME;
            matched++;
            break;
        }
    }
    return matched;
}

/* ---- Topology -------------------------------------------------------------- */
typedef struct topo {
    const sk_skeleton *skel;
    const sk_vec3 *pos;   /* rest model positions */
    const uint32_t *size; /* joints in the subtree */
    const uint32_t *height; /* longest chain down, a leaf is 1 */
    const int32_t *first, *next; /* first child, next sibling (index order), -1 = none */
    sk_vec3 up;
} topo;

/* The child of j with the largest subtree (the first on a tie), or -1. */
static int32_t main_child(const topo *t, uint32_t j) {
    int32_t best = -1;
    for (int32_t c = t->first[j]; c >= 0; c = t->next[c])
        if (best < 0 || t->size[c] > t->size[best]) best = c;
    return best;
}

static uint32_t child_count(const topo *t, uint32_t j, uint32_t min_height) {
    uint32_t n = 0;
    for (int32_t c = t->first[j]; c >= 0; c = t->next[c])
        if (t->height[c] >= min_height) n++;
    return n;
}

/* Follows main children from j to a joint with >= 2 children (stop_at_branch)
 * or a leaf; returns the chain length (capped at cap). */
static uint32_t chain(const topo *t, uint32_t j, int32_t *out, uint32_t cap, bool stop_at_branch) {
    uint32_t n = 0;
    int32_t c = (int32_t)j;
    while (c >= 0 && n < cap) {
        out[n++] = c;
        if (stop_at_branch && n > 1 && child_count(t, (uint32_t)c, 1) >= 2) break;
        c = main_child(t, (uint32_t)c);
    }
    return n;
}

/* Names exporters give the leaf at a chain's end: "..._end", "...End",
 * "End Site", "...Nub", "...top" (ASCII case ignored). */
static bool end_marker(const char *name) {
    char n[128];
    skr_normalize_name(name, n, sizeof n);
    size_t l = strlen(n);
    static const char *const tails[] = {"end", "nub", "top", "site", "tip"};
    for (size_t k = 0; k < sizeof tails / sizeof tails[0]; k++) {
        size_t tl = strlen(tails[k]);
        if (l >= tl && strcmp(n + l - tl, tails[k]) == 0) return true;
    }
    return false;
}

static float up_of(const topo *t, sk_vec3 d) { return sk_vec3_dot(d, t->up); }

static sk_vec3 bone_dir(const topo *t, int32_t a, int32_t b) {
    return skm_vec3_unit(sk_vec3_sub(t->pos[b], t->pos[a]));
}

static float seg(const topo *t, int32_t a, int32_t b) { return skm_vec3_len(sk_vec3_sub(t->pos[b], t->pos[a])); }

/* The start s of the two adjacent bones c[s]-c[s+1]-c[s+2] of largest total
 * length (thigh and shin, upper arm and forearm: the long bones of a limb). */
static uint32_t longest_pair(const topo *t, const int32_t *c, uint32_t n) {
    uint32_t best = 0;
    float bl = -1.0f;
    for (uint32_t s = 0; s + 2 < n; s++) {
        float l = seg(t, c[s], c[s + 1]) + seg(t, c[s + 1], c[s + 2]);
        if (l > bl * 1.0001f) bl = l, best = s;
    }
    return best;
}

/* Fills a leg from its chain: upper leg, lower leg, foot at the two longest
 * adjacent bones, the next joint the toes (or -1). */
static bool topo_leg(const topo *t, uint32_t start, int32_t out[4]) {
    int32_t c[64];
    uint32_t n = chain(t, start, c, 64, false);
    if (n < 3) return false;
    uint32_t s = longest_pair(t, c, n);
    out[0] = c[s], out[1] = c[s + 1], out[2] = c[s + 2];
    out[3] = s + 3 < n ? c[s + 3] : -1;
    return true;
}

/* Fills an arm: shoulder (the joint above the upper arm, or -1), upper arm,
 * lower arm, hand: the chain down to the first joint that branches (the
 * hand with its fingers) ends at the hand; a chain that does not branch has
 * the upper and lower arm at its two longest adjacent bones. */
static bool topo_arm(const topo *t, uint32_t start, int32_t out[4]) {
    int32_t c[64];
    uint32_t n = chain(t, start, c, 64, true);
    if (n < 3) return false;
    /* A chain that ends where the fingers branch ends at the hand. */
    uint32_t s = child_count(t, (uint32_t)c[n - 1], 1) >= 2 ? n - 3 : longest_pair(t, c, n);
    out[0] = s > 0 ? c[s - 1] : -1, out[1] = c[s], out[2] = c[s + 1], out[3] = c[s + 2];
    return true;
}

static sk_result topo_find(const topo *t, const sk_humanoid_map *names, sk_humanoid_map *m, sk_error *err) {
    const sk_skeleton *s = t->skel;
    uint32_t n = s->joint_count;
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) m->joint[b] = -1, m->how[b] = SK_HUMANOID_BY_TOPOLOGY;
    /* Hips: named, or the shallowest joint with three branches of two joints or more. */
    int32_t hips = names->joint[SK_HUMANOID_HIPS];
    if (hips < 0) {
        uint32_t best_depth = UINT32_MAX;
        for (uint32_t j = 0; j < n; j++) {
            if (child_count(t, j, 2) < 3) continue;
            uint32_t d = 0;
            for (int32_t p = s->parents[j]; p >= 0 && d < best_depth; p = s->parents[p]) d++;
            if (d < best_depth) best_depth = d, hips = (int32_t)j;
        }
    }
    if (hips < 0)
        return sk_error_set(err, SK_ERR_INVALID_DATA,
                            "no hips: no joint named like hips and none where two legs and a spine branch off");
    m->joint[SK_HUMANOID_HIPS] = hips;
    /* Branches: the largest is the spine, the next two the legs. */
    int32_t br[3] = {-1, -1, -1};
    for (int32_t c = t->first[hips]; c >= 0; c = t->next[c]) {
        if (t->height[c] < 2) continue;
        int32_t x = c;
        for (int k = 0; k < 3; k++)
            if (br[k] < 0 || t->size[x] > t->size[br[k]]) { int32_t tmp = br[k]; br[k] = x; x = tmp; if (x < 0) break; }
    }
    if (br[2] < 0)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "no legs: the hips '%s' do not branch into a spine and two legs",
                            s->names[hips]);
    /* Spine up to the chest, where arms and neck branch off. */
    int32_t sp[256];
    uint32_t ns = 0;
    for (int32_t c = br[0]; c >= 0 && ns < 256; c = main_child(t, (uint32_t)c)) {
        sp[ns++] = c;
        if (child_count(t, (uint32_t)c, 1) >= 3) break;
    }
    int32_t chest = sp[ns - 1];
    if (child_count(t, (uint32_t)chest, 1) < 3)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "no chest: the spine from '%s' never branches into arms and a neck",
                            s->names[br[0]]);
    /* Up: from the hips to the chest. */
    topo tt = *t;
    tt.up = skm_vec3_unit(sk_vec3_sub(t->pos[chest], t->pos[hips]));
    if (skm_vec3_is_zero(tt.up)) tt.up = sk_vec3_make(0, 1, 0);
    t = &tt;
    m->joint[SK_HUMANOID_SPINE] = sp[0];
    if (ns == 2) m->joint[SK_HUMANOID_CHEST] = sp[1];
    if (ns >= 3) m->joint[SK_HUMANOID_CHEST] = sp[ns - 2], m->joint[SK_HUMANOID_UPPER_CHEST] = sp[ns - 1];
    /* Chest branches: the one whose tip rises most is the neck, the two largest others the arms. */
    int32_t neck = -1, arm[2] = {-1, -1};
    float best = -2.0f;
    for (int32_t c = t->first[chest]; c >= 0; c = t->next[c]) {
        int32_t tip[64];
        uint32_t k = chain(t, (uint32_t)c, tip, 64, false);
        float u = up_of(t, skm_vec3_unit(sk_vec3_sub(t->pos[tip[k - 1]], t->pos[chest])));
        if (k > 1 || u > 0) {
            if (u > best) best = u, neck = c;
        }
    }
    for (int32_t c = t->first[chest]; c >= 0; c = t->next[c]) {
        if (c == neck) continue;
        int32_t x = c;
        for (int k = 0; k < 2; k++)
            if (arm[k] < 0 || t->size[x] > t->size[arm[k]]) { int32_t tmp = arm[k]; arm[k] = x; x = tmp; if (x < 0) break; }
    }
    if (neck < 0 || arm[1] < 0)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "no arms: the chest '%s' does not branch into two arms and a neck",
                            s->names[chest]);
    int32_t nk[64];
    uint32_t nn = chain(t, (uint32_t)neck, nk, 64, true);
    bool branches = child_count(t, (uint32_t)nk[nn - 1], 1) >= 2, dropped = false;
    while (nn > 1 && end_marker(s->names[nk[nn - 1]])) nn--, dropped = true;
    /* neck chain: the head alone; neck, head; neck ..., head (a branch or
     * an end marker after it); neck ..., head, an unnamed end */
    if (nn == 1) m->joint[SK_HUMANOID_HEAD] = nk[0];
    else m->joint[SK_HUMANOID_NECK] = nk[0], m->joint[SK_HUMANOID_HEAD] = nk[nn == 2 || branches || dropped ? nn - 1 : nn - 2];
    int32_t legs[2][4], arms[2][4];
    if (!topo_leg(t, (uint32_t)br[1], legs[0]) || !topo_leg(t, (uint32_t)br[2], legs[1]))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "no legs: a leg branch of the hips '%s' has fewer than 3 joints",
                            s->names[hips]);
    if (!topo_arm(t, (uint32_t)arm[0], arms[0]) || !topo_arm(t, (uint32_t)arm[1], arms[1]))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "no arms: an arm branch of '%s' has fewer than 3 joints",
                            s->names[chest]);
    /* Left and right: facing along the toes (else +Z, or -Y when Z is up), left = up x forward. */
    sk_vec3 fwd = sk_vec3_make(0, 0, 0);
    for (int k = 0; k < 2; k++)
        if (legs[k][3] >= 0) fwd = sk_vec3_add(fwd, skm_vec3_reject(bone_dir(t, legs[k][2], legs[k][3]), t->up));
    if (skm_vec3_len(fwd) < 0.2f) {
        fwd = fabsf(t->up.z) > 0.7071f ? sk_vec3_make(0, -1, 0) : sk_vec3_make(0, 0, 1);
        fwd = skm_vec3_reject(fwd, t->up);
    }
    sk_vec3 left = sk_vec3_cross(t->up, fwd);
    int ll = sk_vec3_dot(sk_vec3_sub(t->pos[legs[0][0]], t->pos[legs[1][0]]), left) >= 0 ? 0 : 1;
    int la = sk_vec3_dot(sk_vec3_sub(t->pos[arms[0][3]], t->pos[arms[1][3]]), left) >= 0 ? 0 : 1;
    for (int k = 0; k < 4; k++) {
        m->joint[SK_HUMANOID_LEFT_UPPER_LEG + k] = legs[ll][k];
        m->joint[SK_HUMANOID_RIGHT_UPPER_LEG + k] = legs[1 - ll][k];
        m->joint[SK_HUMANOID_LEFT_SHOULDER + k] = arms[la][k];
        m->joint[SK_HUMANOID_RIGHT_SHOULDER + k] = arms[1 - la][k];
    }
    return SK_OK;
}

sk_result skr_rest_model(const sk_skeleton *skel, const sk_pose *rest, sk_mat4 *model, sk_error *err) {
    if (rest) return sk_local_to_model(skel, rest, NULL, model, skel->joint_count, err);
    sk_pose p = sk_pose_view((sk_transform *)skel->rest, skel->joint_count, NULL, 0);
    return sk_local_to_model(skel, &p, NULL, model, skel->joint_count, err);
}

bool skr_transforms_finite(const sk_transform *x, uint32_t n) {
    for (uint32_t j = 0; j < n; j++)
        if (!skm_vec3_finite(x[j].t) || !skm_vec3_finite(x[j].s) || !skm_quat_finite(x[j].r)) return false;
    return true;
}

sk_result sk_humanoid_map_find_alloc(const sk_skeleton *skel, const sk_pose *rest, const sk_allocator *alloc,
                                     sk_humanoid_map *out, sk_error *err) {
    if (!skel || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_map_find: NULL skeleton or output");
    if (rest && sk_pose_check(skel, rest, "sk_humanoid_map_find", err) != SK_OK) return err ? err->code : SK_ERR_INVALID_ARGUMENT;
    if (rest && !skr_transforms_finite(rest->local, rest->joint_count))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "sk_humanoid_map_find: the rest pose holds a non-finite value");
    sk_humanoid_map byname, m;
    int best = -1;
    const char *scheme_name = "topology";
    for (size_t k = 0; k < SCHEME_COUNT; k++) {
        int got = map_by_scheme(skel, &schemes[k], &m);
        if (got > best && got > 0) best = got, byname = m, scheme_name = schemes[k].name;
    }
    if (best <= 0)
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) byname.joint[b] = -1, byname.how[b] = SK_HUMANOID_UNMAPPED;
    bool complete = true;
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
        if (sk_humanoid_bone_required((sk_humanoid_bone)b) && byname.joint[b] < 0) complete = false;
    if (!complete) {
        uint32_t n = skel->joint_count;
        size_t bytes = (size_t)n * (sizeof(sk_mat4) + sizeof(sk_vec3) + 4 * sizeof(uint32_t));
        const sk_allocator *a = sk_allocator_or_default(alloc);
        void *mem = sk_alloc(a, bytes);
        if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_humanoid_map_find: out of memory");
        sk_mat4 *model = (sk_mat4 *)mem;
        sk_vec3 *pos = (sk_vec3 *)(model + n);
        uint32_t *size = (uint32_t *)(pos + n), *height = size + n;
        int32_t *first = (int32_t *)(height + n), *next = first + n;
        sk_result r = skr_rest_model(skel, rest, model, err);
        if (r == SK_OK) {
            for (uint32_t j = 0; j < n; j++)
                pos[j] = skm_mat4_pos(&model[j]), size[j] = 1, height[j] = 1, first[j] = -1, next[j] = -1;
            for (uint32_t j = n; j-- > 0;) {
                int32_t p = skel->parents[j];
                if (p < 0) continue;
                next[j] = first[p], first[p] = (int32_t)j;
                size[p] += size[j];
                if (height[j] + 1 > height[p]) height[p] = height[j] + 1;
            }
            topo t = {skel, pos, size, height, first, next, sk_vec3_make(0, 1, 0)};
            r = topo_find(&t, &byname, &m, err);
        }
        sk_free(a, mem, bytes);
        if (r != SK_OK) return r;
        /* Names win; topology fills the rest where its joint is still free. */
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            if (byname.joint[b] >= 0 || m.joint[b] < 0) continue;
            bool used = false;
            for (int c = 0; c < SK_HUMANOID_BONE_COUNT; c++) used |= byname.joint[c] == m.joint[b];
            if (!used) byname.joint[b] = m.joint[b], byname.how[b] = SK_HUMANOID_BY_TOPOLOGY;
        }
    }
    byname.scheme = scheme_name;
    sk_result r = sk_humanoid_map_check(&byname, skel, err);
    if (r != SK_OK) return r;
    *out = byname;
    return SK_OK;
}

sk_result sk_humanoid_map_find(const sk_skeleton *skel, const sk_pose *rest, sk_humanoid_map *out, sk_error *err) {
    return sk_humanoid_map_find_alloc(skel, rest, NULL, out, err);
}

sk_result sk_humanoid_map_set(sk_humanoid_map *map, const sk_skeleton *skel, sk_humanoid_bone bone,
                              const char *joint_name, sk_error *err) {
    if (!map || !skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_map_set: NULL map or skeleton");
    if ((unsigned)bone >= SK_HUMANOID_BONE_COUNT)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_map_set: bone %d is out of range", (int)bone);
    if (!joint_name || !joint_name[0]) {
        map->joint[bone] = -1, map->how[bone] = SK_HUMANOID_UNMAPPED;
        return SK_OK;
    }
    int32_t j = sk_skeleton_find(skel, joint_name);
    if (j < 0)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_map_set: %s: no joint named '%s'",
                            bone_names[bone], joint_name);
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
        if (b != (int)bone && map->joint[b] == j) map->joint[b] = -1, map->how[b] = SK_HUMANOID_UNMAPPED;
    map->joint[bone] = j, map->how[bone] = SK_HUMANOID_BY_USER;
    return SK_OK;
}

static bool is_ancestor(const sk_skeleton *s, int32_t a, int32_t j) {
    for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p])
        if (p == a) return true;
    return false;
}

sk_result sk_humanoid_map_check(const sk_humanoid_map *map, const sk_skeleton *skel, sk_error *err) {
    if (!map || !skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_map_check: NULL map or skeleton");
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
        int32_t j = map->joint[b];
        if (j < -1 || j >= (int32_t)skel->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_DATA, "humanoid map: %s is joint %d, out of range", bone_names[b], (int)j);
        if (j < 0 && sk_humanoid_bone_required((sk_humanoid_bone)b))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "humanoid map: no %s", bone_names[b]);
        for (int c = 0; c < b; c++)
            if (j >= 0 && map->joint[c] == j)
                return sk_error_set(err, SK_ERR_INVALID_DATA, "humanoid map: joint '%s' is both %s and %s",
                                    skel->names[j], bone_names[c], bone_names[b]);
    }
    /* Each bone below the one above it in its chain. */
    static const int8_t above[SK_HUMANOID_BONE_COUNT] = {
        -1, SK_HUMANOID_HIPS, SK_HUMANOID_SPINE, SK_HUMANOID_CHEST, SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_NECK,
        SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_LEFT_SHOULDER, SK_HUMANOID_LEFT_UPPER_ARM, SK_HUMANOID_LEFT_LOWER_ARM,
        SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_RIGHT_SHOULDER, SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM,
        SK_HUMANOID_HIPS, SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT,
        SK_HUMANOID_HIPS, SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT};
    for (int b = 1; b < SK_HUMANOID_BONE_COUNT; b++) {
        if (map->joint[b] < 0) continue;
        int a = above[b];
        while (a >= 0 && map->joint[a] < 0) a = above[a]; /* skip optional bones that are absent */
        if (a >= 0 && !is_ancestor(skel, map->joint[a], map->joint[b]))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "humanoid map: %s '%s' is not below %s '%s'", bone_names[b],
                                skel->names[map->joint[b]], bone_names[a], skel->names[map->joint[a]]);
    }
    return SK_OK;
}

float sk_humanoid_leg_length(const sk_skeleton *skel, const sk_pose *rest, const sk_humanoid_map *map) {
    if (!skel || !map) return 0.0f;
    const sk_transform *loc = rest && rest->joint_count == skel->joint_count ? rest->local : skel->rest;
    float total = 0.0f;
    for (int side = 0; side < 2; side++) {
        int base = side ? SK_HUMANOID_RIGHT_UPPER_LEG : SK_HUMANOID_LEFT_UPPER_LEG;
        int32_t a = map->joint[base], b = map->joint[base + 1], c = map->joint[base + 2];
        if (a < 0 || b < 0 || c < 0 || a >= (int32_t)skel->joint_count || b >= (int32_t)skel->joint_count ||
            c >= (int32_t)skel->joint_count)
            return 0.0f;
        sk_vec3 pa = skr_model_position(skel, loc, a), pb = skr_model_position(skel, loc, b),
                pc = skr_model_position(skel, loc, c);
        total += skm_vec3_len(sk_vec3_sub(pb, pa)) + skm_vec3_len(sk_vec3_sub(pc, pb));
    }
    float r = 0.5f * total;
    return sk_isfinite_f(r) ? r : 0.0f;
}

/* Model transform of joint j from local transforms, by walking its ancestors. */
sk_transform skr_model_transform(const sk_skeleton *skel, const sk_transform *local, int32_t j) {
    sk_transform x = local[j];
    for (int32_t p = skel->parents[j]; p >= 0; p = skel->parents[p]) x = sk_transform_mul(&local[p], &x);
    return x;
}

sk_vec3 skr_model_position(const sk_skeleton *skel, const sk_transform *local, int32_t j) {
    return skr_model_transform(skel, local, j).t;
}

void skr_model_all(const sk_skeleton *skel, const sk_transform *local, sk_transform *model) {
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        int32_t p = skel->parents[j];
        model[j] = p < 0 ? local[j] : sk_transform_mul(&model[p], &local[j]);
    }
}

typedef struct named {
    const char *norm;
    int32_t joint;
} named;

static int cmp_named(const void *a, const void *b) {
    const named *x = (const named *)a, *y = (const named *)b;
    int c = strcmp(x->norm, y->norm);
    return c ? c : (x->joint > y->joint) - (x->joint < y->joint);
}

sk_result skr_match_names(const sk_skeleton *src, const sk_skeleton *dst, const sk_allocator *a, int32_t *src_of,
                          sk_error *err) {
    uint32_t ns = src->joint_count;
    size_t chars = 0;
    for (uint32_t j = 0; j < ns; j++) {
        size_t l = strlen(src->names[j]);
        chars += (l < 127 ? l : 127) + 1;
    }
    size_t bytes = (size_t)ns * sizeof(named) + chars;
    named *idx = (named *)sk_alloc(a, bytes);
    if (!idx) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_create: out of memory");
    char *buf = (char *)(idx + ns);
    for (uint32_t j = 0; j < ns; j++) {
        skr_normalize_name(src->names[j], buf, 128);
        idx[j].norm = buf, idx[j].joint = (int32_t)j;
        buf += strlen(buf) + 1;
    }
    qsort(idx, ns, sizeof *idx, cmp_named);
    char norm[128];
    for (uint32_t j = 0; j < dst->joint_count; j++) {
        if (src_of[j] >= 0) continue;
        skr_normalize_name(dst->names[j], norm, sizeof norm);
        if (!norm[0]) continue;
        size_t lo = 0, hi = ns; /* first entry >= norm */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(idx[mid].norm, norm) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < ns && strcmp(idx[lo].norm, norm) == 0) src_of[j] = idx[lo].joint;
    }
    sk_free(a, idx, bytes);
    return SK_OK;
}

/* The hips frame at rest as a rotation (columns lateral, up, forward),
 * from the rest model transforms. */
bool skr_hips_frame(const sk_transform *model, const sk_humanoid_map *m, sk_quat *out) {
    int32_t head = m->joint[SK_HUMANOID_HEAD] >= 0 ? m->joint[SK_HUMANOID_HEAD] : m->joint[SK_HUMANOID_NECK];
    int32_t hips = m->joint[SK_HUMANOID_HIPS], l = m->joint[SK_HUMANOID_LEFT_UPPER_LEG],
            r = m->joint[SK_HUMANOID_RIGHT_UPPER_LEG];
    if (head < 0 || hips < 0 || l < 0 || r < 0) return false;
    sk_vec3 up = skm_vec3_unit(sk_vec3_sub(model[head].t, model[hips].t));
    sk_vec3 lat = skm_vec3_unit(skm_vec3_reject(sk_vec3_sub(model[r].t, model[l].t), up));
    if (skm_vec3_is_zero(up) || skm_vec3_is_zero(lat)) return false;
    sk_vec3 fwd = sk_vec3_cross(lat, up);
    double R[3][3] = {{lat.x, lat.y, lat.z}, {up.x, up.y, up.z}, {fwd.x, fwd.y, fwd.z}}; /* R[col][row] */
    *out = skm_quat_from_rotation(R);
    return true;
}

/* The humanoid bone that follows a bone down its chain (its rest direction
 * defines the bone's direction), in order of preference. */
const int8_t skr_next_bone[SK_HUMANOID_BONE_COUNT][4] = {
    {-1, -1, -1, -1},
    {SK_HUMANOID_CHEST, SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_NECK, SK_HUMANOID_HEAD},
    {SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_NECK, SK_HUMANOID_HEAD, -1},
    {SK_HUMANOID_NECK, SK_HUMANOID_HEAD, -1, -1},
    {SK_HUMANOID_HEAD, -1, -1, -1},
    {-1, -1, -1, -1},
    {SK_HUMANOID_LEFT_UPPER_ARM, -1, -1, -1},
    {SK_HUMANOID_LEFT_LOWER_ARM, -1, -1, -1},
    {SK_HUMANOID_LEFT_HAND, -1, -1, -1},
    {-1, -1, -1, -1},
    {SK_HUMANOID_RIGHT_UPPER_ARM, -1, -1, -1},
    {SK_HUMANOID_RIGHT_LOWER_ARM, -1, -1, -1},
    {SK_HUMANOID_RIGHT_HAND, -1, -1, -1},
    {-1, -1, -1, -1},
    {SK_HUMANOID_LEFT_LOWER_LEG, -1, -1, -1},
    {SK_HUMANOID_LEFT_FOOT, -1, -1, -1},
    {SK_HUMANOID_LEFT_TOES, -1, -1, -1},
    {-1, -1, -1, -1},
    {SK_HUMANOID_RIGHT_LOWER_LEG, -1, -1, -1},
    {SK_HUMANOID_RIGHT_FOOT, -1, -1, -1},
    {SK_HUMANOID_RIGHT_TOES, -1, -1, -1},
    {-1, -1, -1, -1}};
