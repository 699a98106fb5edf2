/* skelanim — retargeting: left/right joint pairs for mirroring. */
#include "anim/retarget_internal.h"

#include <string.h>

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/* Writes the right-side name of a left-side name into out; false when the
 * name carries no left token. Tokens: "Left"/"left"/"LEFT" anywhere; "_l",
 * "_L", ".l", ".L" followed by the end or a non-letter; a leading "L" or "l"
 * (after a namespace) followed by an upper-case letter. */
static bool swap_side(const char *name, char *out, size_t cap) {
    size_t n = strlen(name);
    if (n + 2 > cap) return false;
    static const char *const words[3][2] = {{"Left", "Right"}, {"left", "right"}, {"LEFT", "RIGHT"}};
    for (int w = 0; w < 3; w++) {
        const char *p = strstr(name, words[w][0]);
        if (!p) continue;
        size_t at = (size_t)(p - name);
        memcpy(out, name, at);
        strcpy(out + at, words[w][1]);
        strcat(out, p + 4);
        return true;
    }
    for (size_t i = n; i-- > 0;) {
        if ((name[i] == '_' || name[i] == '.') && i + 1 < n && (name[i + 1] == 'l' || name[i + 1] == 'L') &&
            (i + 2 == n || !is_alpha(name[i + 2]))) {
            memcpy(out, name, n + 1);
            out[i + 1] = name[i + 1] == 'l' ? 'r' : 'R';
            return true;
        }
    }
    size_t s = 0;
    for (size_t i = 0; i < n; i++)
        if (name[i] == ':' || name[i] == '|') s = i + 1;
    if ((name[s] == 'L' || name[s] == 'l') && is_upper(name[s + 1])) {
        memcpy(out, name, n + 1);
        out[s] = name[s] == 'l' ? 'r' : 'R';
        return true;
    }
    return false;
}

static bool pair_has(uint32_t (*pairs)[2], uint32_t written, uint32_t j) {
    for (uint32_t k = 0; k < written; k++)
        if (pairs[k][0] == j || pairs[k][1] == j) return true;
    return false;
}

sk_result sk_skeleton_mirror_pairs(const sk_skeleton *skel, const sk_humanoid_map *map, uint32_t (*pairs)[2],
                                   uint32_t cap, uint32_t *count, sk_error *err) {
    if (!skel || !count || (cap && !pairs))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skeleton_mirror_pairs: NULL skeleton, count or pairs");
    if (map && sk_humanoid_map_check(map, skel, err) != SK_OK) return err ? err->code : SK_ERR_INVALID_DATA;
    /* Found pairs are counted; the first cap are written, and duplicates are
     * looked up among the written ones plus the map (enough when cap is
     * large enough; a second call with the counted size gives the full list). */
    uint32_t found = 0, written = 0;
    uint32_t humanoid[SK_HUMANOID_BONE_COUNT][2];
    uint32_t nh = 0;
    if (map) {
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            sk_humanoid_bone m = sk_humanoid_bone_mirror((sk_humanoid_bone)b);
            bool left = (b >= SK_HUMANOID_LEFT_SHOULDER && b <= SK_HUMANOID_LEFT_HAND) ||
                        (b >= SK_HUMANOID_LEFT_UPPER_LEG && b <= SK_HUMANOID_LEFT_TOES);
            if (!left || (int)m == b) continue;
            if (map->joint[b] < 0 || map->joint[m] < 0) continue;
            humanoid[nh][0] = (uint32_t)map->joint[b], humanoid[nh][1] = (uint32_t)map->joint[m];
            if (written < cap) pairs[written][0] = humanoid[nh][0], pairs[written][1] = humanoid[nh][1], written++;
            nh++, found++;
        }
    }
    char other[256];
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        if (!swap_side(skel->names[j], other, sizeof other)) continue;
        int32_t k = sk_skeleton_find(skel, other);
        if (k < 0 || (uint32_t)k == j) continue;
        bool dup = pair_has(humanoid, nh, j) || pair_has(humanoid, nh, (uint32_t)k) || pair_has(pairs, written, j) ||
                   pair_has(pairs, written, (uint32_t)k);
        if (dup) continue;
        if (written < cap) pairs[written][0] = j, pairs[written][1] = (uint32_t)k, written++;
        found++;
    }
    *count = found;
    return SK_OK;
}
