/* skelanim export-mannequin OUT.glb
 * skelanim export-course OUT.glb
 * skelanim convert FILE OUT.glb|OUT.bvh   (any file the loader reads, or @mannequin) */
#include "cli.h"
#include "course.h"

#include <string.h>

/* What the writer leaves out goes to stderr (nothing is lost silently). */
static void write_warning(void *user, const char *message) {
    fprintf(stderr, "skelanim: warning: %s: %s\n", (const char *)user, message);
}

static int write_glb(const char *in, const char *out, double scale) {
    sk_asset *a = NULL;
    if (!cli_load_scaled(in, scale, &a)) return 1;
    sk_error err = {0};
    sk_glb_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.warning = write_warning;
    wo.warning_user = (void *)out;
    sk_result r = sk_glb_write_file_ex(a, out, &wo, &err);
    sk_asset_destroy(a);
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message); /* the message names the file */
        return 1;
    }
    printf("wrote %s\n", out);
    return 0;
}

typedef struct export_args {
    const char *in, *out;
    double scale;
    const char *clip;   /* convert to .bvh: the clip */
    int euler;          /* index into "auto|XYZ|XZY|YXZ|YZX|ZXY|ZYX" */
    double fps;         /* frames per second of a resampled clip */
    double bvh_scale;   /* file units per unit */
    bool exact, drop_scale;
} export_args;

static bool is_bvh_out(const char *p) {
    size_t n = strlen(p);
    return n >= 4 && p[n - 4] == '.' && (p[n - 3] | 32) == 'b' && (p[n - 2] | 32) == 'v' && (p[n - 1] | 32) == 'h';
}

/* FILE as BVH: one clip (the named one, else the first), what BVH cannot hold said on stderr. */
static int write_bvh(const export_args *a) {
    sk_asset *asset = NULL;
    if (!cli_load_scaled(a->in, a->scale, &asset)) return 1;
    const sk_clip *clip = NULL;
    int rc = 1;
    if (a->clip) {
        int32_t c = cli_find_clip(asset, a->clip); /* -1: none; -2: not found (said) */
        if (c == -2) goto done;
        if (c >= 0) clip = asset->clips[c];
    } else if (asset->clip_count) {
        clip = asset->clips[0];
    }
    sk_bvh_write_options o;
    memset(&o, 0, sizeof o);
    o.scale = a->bvh_scale;
    o.frame_time = a->fps > 0 ? 1.0 / a->fps : 0.0;
    o.euler = (sk_bvh_euler)a->euler;
    o.refuse_resample = a->exact;
    o.drop_scale = a->drop_scale;
    sk_bvh_write_report rep;
    sk_error err = {0};
    if (sk_bvh_write_file(a->out, asset->skeleton, clip, &o, &rep, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    if (rep.resampled)
        fprintf(stderr, "skelanim: %s: clip '%s' has key times that are not uniform: sampled every %.6g s (%u frames)\n",
                a->out, clip ? sk_clip_name(clip) : "", rep.frame_time, rep.frames);
    if (rep.scale_dropped)
        fprintf(stderr, "skelanim: warning: %s: the scale of %u joint(s) dropped (--drop-scale; BVH has no scale)\n",
                a->out, rep.scale_dropped);
    if (rep.scale_baked)
        fprintf(stderr, "skelanim: %s: the constant scale of %u joint(s) baked into the offsets (positions kept)\n",
                a->out, rep.scale_baked);
    printf("wrote %s (%u joints, %u frames at %.6g s%s%s)\n", a->out, asset->skeleton->joint_count, rep.frames,
           rep.frame_time, clip ? ", clip " : ", rest pose", clip ? sk_clip_name(clip) : "");
    rc = 0;
done:
    sk_asset_destroy(asset);
    return rc;
}

static int cmd_export_mannequin(int argc, char **argv) {
    export_args a;
    memset(&a, 0, sizeof a);
    int rc = cli_parse(&cli_cmd_export_mannequin, argc, argv, &a, NULL);
    return rc != CLI_CONTINUE ? rc : write_glb(SK_CLI_MANNEQUIN, a.out, 0.0);
}

static int cmd_convert(int argc, char **argv) {
    export_args a;
    memset(&a, 0, sizeof a);
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_convert, argc, argv, &a, &seen);
    if (rc != CLI_CONTINUE) return rc;
    if (is_bvh_out(a.out)) return write_bvh(&a);
    static const char *const bvh_only[] = {"--clip", "--euler", "--fps", "--bvh-scale", "--exact", "--drop-scale"};
    for (size_t i = 0; i < sizeof bvh_only / sizeof bvh_only[0]; i++)
        if (cli_given(&seen, bvh_only[i])) {
            fprintf(stderr, "skelanim: %s applies to a .bvh output only\n", bvh_only[i]);
            return 1;
        }
    return write_glb(a.in, a.out, a.scale);
}

static int cmd_export_course(int argc, char **argv) {
    export_args a;
    memset(&a, 0, sizeof a);
    int rc = cli_parse(&cli_cmd_export_course, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (cli_course_asset(&asset, &err) != SK_OK || sk_glb_write_file(asset, a.out, NULL, &err) != SK_OK) {
        fprintf(stderr, "skelanim: export-course: %s\n", err.message);
        sk_asset_destroy(asset);
        return 1;
    }
    sk_asset_destroy(asset);
    printf("wrote %s\n", a.out);
    return 0;
}

static const cli_arg out_arg[] = {{"OUT.glb", CLI_ARG(export_args, out), .flags = CLI_REQUIRED, .help = "the file to write"}};
const cli_command cli_cmd_export_mannequin = {
    .name = "export-mannequin",
    .run = cmd_export_mannequin,
    .summary = "write the built-in character as a .glb",
    .about = "Writes the built-in character (" SK_CLI_MANNEQUIN ": skeleton, skinned mesh, materials, clips) as a "
             "self-contained .glb.",
    .args = out_arg,
    .nargs = CLI_COUNT(out_arg),
};
const cli_command cli_cmd_export_course = {
    .name = "export-course",
    .run = cmd_export_course,
    .summary = "write the locomotion course (--terrain course) as a .glb",
    .args = out_arg,
    .nargs = CLI_COUNT(out_arg),
};

static const cli_opt convert_opts[] = {
    CLI_OPT_SCALE(export_args, scale),
    {"--clip", CLI_STRING(export_args, clip), .meta = "NAME|INDEX|none", .help = "(.bvh) the clip to write; none: the rest pose",
     .dflt_text = "the first"},
    {"--euler", CLI_CHOICE(export_args, euler, "auto|XYZ|XZY|YXZ|YZX|ZXY|ZYX"), .dflt = "auto",
     .help = "(.bvh) the rotation channels' order; auto: per joint, the one farthest from gimbal lock"},
    {"--fps", CLI_REAL(export_args, fps), .meta = "F", .min = 0.1, .max = 1e4, .dflt = "30",
     .help = "(.bvh) frames per second when the clip's keys are not uniform (it is then sampled)"},
    {"--exact", CLI_FLAG(export_args, exact), .help = "(.bvh) refuse a clip whose keys are not uniform instead of sampling it"},
    {"--drop-scale", CLI_FLAG(export_args, drop_scale),
     .help = "(.bvh) write a scale that changes or is not uniform as 1 (BVH has no scale) instead of refusing"},
    {"--bvh-scale", CLI_REAL(export_args, bvh_scale), .meta = "U", .min = 1e-9, .max = 1e9, .dflt = "1",
     .help = "(.bvh) file units per unit of FILE, e.g. 100 for centimetres from metres"},
};
static const cli_arg convert_args[] = {
    {"FILE", CLI_ARG(export_args, in), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP},
    {"OUT", CLI_ARG(export_args, out), .flags = CLI_REQUIRED, .help = "the file to write: OUT.glb, or OUT.bvh"},
};
const cli_command cli_cmd_convert = {
    .name = "convert",
    .run = cmd_convert,
    .summary = "write FILE as a self-contained .glb, or its skeleton and a clip as .bvh",
    .about = "Writes FILE (skeleton, meshes, skins, materials, textures, clips) as a "
             "self-contained .glb; what the writer leaves out is said on stderr. To OUT.bvh it writes the skeleton "
             "(its rest pose as the BVH rest pose) and one clip, each joint's Euler order chosen against gimbal "
             "lock; a clip whose keys are not uniform is sampled (--fps), a constant uniform scale is baked into the offsets "
             "and any other scale refused (--drop-scale), "
             "said on stderr (docs/bvh.md, \"Writing BVH\").",
    .opts = convert_opts,
    .nopts = CLI_COUNT(convert_opts),
    .args = convert_args,
    .nargs = CLI_COUNT(convert_args),
};
