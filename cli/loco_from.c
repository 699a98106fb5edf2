/* skelanim command-line tool: clips retargeted from other files for the
 * locomotion runner (loco_from.h). */
#include "loco_from.h"
#include "cli.h"
#include "parse_number.h"
#include "retarget_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool exists(const char *path) {
    struct stat st;
    return (path[0] == '@' && !strchr(path, ':')) || stat(path, &st) == 0; /* a built-in: @NAME, no clip part */
}

/* The clip a spec names (a name, else an index), or -1 after printing. */
static int32_t pick_clip(const sk_asset *a, const char *file, const char *spec) {
    if (a->clip_count == 0) {
        fprintf(stderr, "skelanim: --from %s: the file has no clip\n", file);
        return -1;
    }
    if (!spec) return 0;
    int32_t i = sk_asset_find_clip(a, spec);
    if (i >= 0) return i;
    double v;
    if (cli_number(spec, strlen(spec), CLI_NUM_UINT, 0.0, (double)a->clip_count - 1.0, &v, NULL, 0)) return (int32_t)v;
    fprintf(stderr, "skelanim: --from %s:%s: no such clip (the file has %u clip%s", file, spec, a->clip_count,
            a->clip_count == 1 ? "" : "s");
    for (uint32_t c = 0; c < a->clip_count && c < 20; c++)
        fprintf(stderr, "%s%u '%s'", c ? ", " : ": ", c, sk_clip_name(a->clips[c]));
    fprintf(stderr, ")\n");
    return -1;
}

/* The file of a FILE[:CLIP] spec into out (cap bytes; the whole spec when it exists as
 * given), and the clip's part (NULL: none). */
static const char *split_spec(const char *spec, char *out, size_t cap) {
    snprintf(out, cap, "%s", spec);
    char *colon = strrchr(out, ':');
    if (!exists(out) && colon && colon != out && colon[1]) {
        *colon = '\0';
        return spec + (colon - out) + 1;
    }
    return NULL;
}

bool loco_from_is_bvh(const char *spec) {
    char file[1024];
    split_spec(spec, file, sizeof file);
    return cli_file_format(file) == CLI_FORMAT_BVH;
}

bool loco_from_clip(const char *spec, double scale, const sk_asset *target, bool backward, sk_clip **out,
                    loco_from_info *info) {
    *out = NULL;
    loco_from_info in;
    memset(&in, 0, sizeof in);
    double t0 = cli_now();
    /* FILE:CLIP, unless the whole spec is a file */
    size_t n = strlen(spec);
    char *file = malloc(n + 1);
    if (!file) {
        fprintf(stderr, "skelanim: out of memory\n");
        return false;
    }
    memcpy(file, spec, n + 1);
    const char *clip = NULL;
    char *colon = strrchr(file, ':');
    if (!exists(file) && colon && colon != file && colon[1]) {
        *colon = '\0';
        clip = colon + 1;
    }
    bool ok = false;
    sk_asset *src = NULL;
    sk_error err = {0};
    cli_retarget rt;
    memset(&rt, 0, sizeof rt);
    cli_format fmt = cli_file_format(file);
    if (fmt != CLI_FORMAT_BVH) scale = 0.0; /* --from-scale is the .bvh sources' (loco_char_create checks there is one) */
    if (cli_load_file(file, scale, true, &src, &err) != SK_OK) {
        if (err.message[0] && !strncmp(err.message, file, strlen(file))) /* the readers' messages name the file */
            fprintf(stderr, "skelanim: --from: %s\n", err.message);
        else
            fprintf(stderr, "skelanim: --from %s: %s\n", file, err.message[0] ? err.message : "cannot read");
        goto done;
    }
    int32_t ci = pick_clip(src, file, clip);
    if (ci < 0) goto done;
    snprintf(in.clip, sizeof in.clip, "%s", sk_clip_name(src->clips[ci]));
    if (cli_retarget_open(src, target, NULL, &rt, &err) != SK_OK) {
        fprintf(stderr, "skelanim: --from %s: %s\n", file, err.message);
        goto done;
    }
    /* the retargeter's source map: for a rest that does not stand, the one found on the clip's frames */
    const sk_humanoid_map *map = sk_retarget_map(rt.rt, 0);
    in.leg_units = sk_humanoid_leg_length(src->skeleton, NULL, map);
    char why[256];
    if (fmt == CLI_FORMAT_BVH && scale == 0.0 && cli_not_metres(src, map, "--from-scale", why, sizeof why)) {
        fprintf(stderr, "skelanim: --from %s: %s\n", file, why);
        goto done;
    }
    if (rt.leg_count != 2) {
        fprintf(stderr, "skelanim: --from %s: the source or the character has no two legs in its humanoid map\n", file);
        goto done;
    }
    cli_retarget_info ri;
    rt.no_level = true; /* loco_char_create levels the clip itself (loco_run.c) */
    if (cli_retarget_bake(&rt, src->clips[ci], false, out, &ri, &err) != SK_OK) {
        fprintf(stderr, "skelanim: --from %s: %s\n", spec, err.message);
        goto done;
    }
    in.contacts = ri.contacts;
    if (info && rt.leg_count == 2) { /* the source, for loco_from_widen */
        memcpy(in.source_legs, rt.source_legs, sizeof in.source_legs);
        in.source = src;
        in.source_clip = ci;
        in.backward = backward;
        src = NULL;
    }
    ok = true;
done:
    cli_retarget_close(&rt);
    sk_asset_destroy(src);
    free(file);
    in.retarget_ms = (cli_now() - t0) * 1e3;
    if (!ok) loco_from_release(&in);
    if (info) *info = in;
    else loco_from_release(&in);
    return ok;
}

bool loco_from_widen(const loco_from_info *info, const char *spec, sk_motion_analysis *a) {
    if (!info->source || !a) return false;
    sk_motion_analysis_options ao;
    memset(&ao, 0, sizeof ao);
    ao.backward = info->backward;
    ao.cycle_start = a->cycle_start;
    ao.cycle_end = a->cycle_start + a->cycle_duration;
    sk_leg_desc legs[2];
    memcpy(legs, info->source_legs, sizeof legs);
    sk_motion_analysis *own = NULL;
    sk_error err = {0};
    bool ok = sk_motion_analyze(info->source->skeleton, info->source->clips[info->source_clip], legs, 2, &ao, NULL,
                                &own, &err) == SK_OK &&
              sk_motion_analysis_widen_planted(a, own, 0.0f, NULL, &err) == SK_OK;
    if (!ok) fprintf(stderr, "skelanim: warning: --from %s: its planted phases as on its own skeleton: %s\n", spec, err.message);
    sk_motion_analysis_destroy(own);
    return ok;
}

void loco_from_release(loco_from_info *info) {
    sk_asset_destroy(info->source);
    info->source = NULL;
}
