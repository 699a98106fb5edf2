/* skelanim command-line tool: shared helpers. */
#ifndef SK_CLI_H
#define SK_CLI_H

#include "skelanim.h"
#include "options.h"
#include "parse_number.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* The built-in character can be named wherever a file is expected. */
#define SK_CLI_MANNEQUIN "@mannequin"
/* The planar (side-view) character of the IK-only walker, bones only. */
#define SK_CLI_PLANAR "@planar"
/* The planar character with a skinned cut-out 2D mesh (content/sprite.h). */
#define SK_CLI_SPRITE "@sprite"
/* The creatures of the N-legged walker (content/creature.h). */
#define SK_CLI_TRIPOD "@tripod"
#define SK_CLI_QUADRUPED "@quadruped"
#define SK_CLI_HEXAPOD "@hexapod"

/* Loads FILE (or the built-in mannequin); prints the error and returns false on failure.
 * The reader is cli_file_format's choice. */
bool cli_load(const char *path, sk_asset **out);
/* Which reader takes a file: the built-in characters by name, .skc and .bvh
 * by extension (any case), glTF by content (the .glb magic or JSON) or by a
 * .gltf/.glb extension (and what is not a readable regular file: the glTF reader
 * says so), everything else the importer (assimp; import/import.h). */
typedef enum cli_format {
    CLI_FORMAT_BUILTIN,
    CLI_FORMAT_SKC,
    CLI_FORMAT_BVH,
    CLI_FORMAT_GLTF,
    CLI_FORMAT_IMPORT
} cli_format;
cli_format cli_file_format(const char *path);
/* The one loader dispatch of the tool (every command that reads a file):
 * the reader cli_file_format names, scale for a .bvh (0: the file's units),
 * the readers' warnings on stderr when warnings is set. A build without the
 * importer refuses what only it reads ("this build reads no .fbx files
 * (configure with -DSK_IMPORT=ON ...)"). With SKELANIM_ISOLATE set (not empty,
 * not 0) in the environment, an imported file is parsed in a child process
 * (cli_import_isolated): a crash of assimp is an error, not the tool's. */
sk_result cli_load_file(const char *path, double scale, bool warnings, sk_asset **out, sk_error *err);
/* The inputs of the commands that take many files (bench load, compress):
 * .glb, .gltf, .bvh, and with the importer what assimp reads (named on the
 * command line) or .fbx and .dae (found in a folder: listed). */
bool cli_readable_input(const char *path, bool listed);
#ifdef SK_HAVE_IMPORT
/* sk_import_file in a forked child that sends the asset back as .glb bytes
 * through a pipe (sk_glb_write_memory, sk_gltf_load_memory): a child killed
 * by a signal gives "PATH: the importer crashed (signal N)". cmd_import.c. */
sk_result cli_import_isolated(const char *path, const sk_import_options *opts, sk_asset **out, sk_error *err);
#endif
/* The same with --scale M_PER_UNIT (0: none, the file's own units). Only a
 * .bvh file takes a scale; for another file it is an error. */
bool cli_load_scaled(const char *path, double scale, sk_asset **out);
/* A .bvh read in its own units whose humanoid legs (sk_humanoid_leg_length)
 * measure more than CLI_MAX_LEG_UNITS: the file is not in metres. True with
 * why = "its legs are N units long: the file is not in metres; give OPT
 * (metres per unit: 0.056444 for a CMU capture)" (or centimetres, inches);
 * false when they do not, or the skeleton has no humanoid map. map: the
 * skeleton's (NULL: found on its rest). */
#define CLI_MAX_LEG_UNITS 5.0
bool cli_not_metres(const sk_asset *a, const sk_humanoid_map *map, const char *opt, char *why, size_t cap);
/* A leg's planted share of its cycle (foot-land .. foot-lift, wrapped); under
 * CLI_PLANTED_MIN the analysis found no stance for it, which locomote warns
 * of and analyze notes. */
#define CLI_PLANTED_MIN 0.05
double cli_planted_share(const sk_leg_analysis *leg);
/* True for a path ending in .skc (any case): io/skc.h, positions in the unit it records. */
bool cli_is_skc(const char *path);
/* True for a path ending in .bvh (any case). */
bool cli_is_bvh(const char *path);
/* The range of --scale (units per file unit). */
#define CLI_SCALE_MIN 1e-9
#define CLI_SCALE_MAX 1e9
/* The help of a FILE argument, and the --scale option of the commands that load one. */
#define CLI_FILE_HELP                                                                                     \
    "a .glb, .gltf, .skc or .bvh file, a file of another format the build imports (FBX, COLLADA, ...: "   \
    "info --formats), or " SK_CLI_MANNEQUIN ", the built-in character"
#define CLI_OPT_SCALE(T, f)                                                                                \
    {"--scale", CLI_REAL(T, f), .min = CLI_SCALE_MIN, .max = CLI_SCALE_MAX, .meta = "M",                  \
     .help = "metres per unit of a .bvh file, 0.0564444 for CMU captures", .dflt_text = "the file's units"}
/* A JSON number formatted with 9 significant digits (float precision). A
 * non-finite value is kept as a non-finite cJSON number, which
 * cli_json_finite finds: the tool never prints it (as null) with exit 0. */
cJSON *cli_num(double v);
cJSON *cli_nums(const float *v, int n);
/* True when every number in root is finite; else prints "skelanim: WHAT:
 * non-finite value at /json/pointer" and returns false (the caller exits 1). */
bool cli_json_finite(const cJSON *root, const char *what);
/* root as one JSON line on stdout (flushed), then deleted. */
void cli_put_json_line(cJSON *root);
/* Monotonic clock in seconds, and a qsort comparator for doubles (benchmarks). */
double cli_now(void);
/* CPU time of the calling thread (s): excludes the time other processes
 * hold the core (a shared machine); the wall clock when unavailable. */
double cli_thread_cpu_now(void);
int cli_cmp_double(const void *a, const void *b);
/* bytes on a 64-byte boundary (a cache line: a matrix is one line, as the
 * ozz harness's allocations give ozz), zeroed; freed with free. NULL when
 * out of memory. */
void *cli_alloc64(size_t bytes);
/* Every number on the command line goes through cli_number (parse_number.h):
 * finite, inside [min, max], subnormals accepted, unsigned values refuse a
 * sign. These print "skelanim: OPT: 'S' <reason>" on failure. */
bool cli_parse_real(const char *opt, const char *s, double min, double max, double *out);
bool cli_parse_uint(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* The same without a range of the option's own: any finite number, any u32. */
bool cli_parse_double(const char *opt, const char *s, double *out);
bool cli_parse_u32(const char *opt, const char *s, uint32_t *out);
/* Exactly n numbers separated by sep ("X,Y,Z", "NODE:PRIM:VTX", "WxH"). */
bool cli_parse_doubles(const char *opt, const char *s, char sep, int n, double min, double max, double *out);
bool cli_parse_u32s(const char *opt, const char *s, char sep, int n, uint32_t min, uint32_t max, uint32_t *out);
/* Ranges shared by several options (docs/robustness.md). */
#define CLI_TIME_MAX 1e9       /* |--time| in seconds */
#define CLI_STEP_MAX 1e4       /* --steps DT: seconds per step */
#define CLI_STEPS_MAX 1000000u /* --steps: updates in all */
#define CLI_COORD_MAX 1e6      /* |coordinates| in metres (--target, --pole, ...) */
#define CLI_PARAM_MAX 1e6      /* |--set NAME=VALUE| */
#define CLI_WEIGHT_MAX 1e3     /* --weight */
/* Resolves a clip given by name or index; -1 for "none"; -2 (after printing) when not found. */
int32_t cli_find_clip(const sk_asset *asset, const char *spec);
/* A character's legs: from joint names (sk_legs_find), else the two of its
 * humanoid map (sk_legs_from_humanoid: names of other schemes, or shape).
 * Returns how many (0 to cap). */
uint32_t cli_legs_find(const sk_skeleton *skel, sk_leg_desc *legs, uint32_t cap);
/* Joints of the default scene (or all), in file node order: fills out (node_count entries). */
uint32_t cli_scene_nodes(const sk_asset *asset, uint32_t *out_nodes);

/* skelanim sample beyond one clip (cli/sample_blend.c): blends and state machines. */
typedef struct cli_blend_clip {
    const char *spec;   /* --clip NAME|INDEX */
    double weight;      /* --weight W after it */
    bool has_weight;
    const char *mask;   /* --mask JOINT after it: the clip acts on that joint's subtree only */
    bool additive;      /* --additive after it: difference from its first frame, added on top */
} cli_blend_clip;
typedef struct cli_sample_ext {
    cli_blend_clip *clips;
    uint32_t nclips;
    const char *blend_mode; /* --blend-mode nlerp|slerp */
    const char *graph;      /* --graph FILE */
    const char *const *sets; /* --set NAME=VALUE | NAME (trigger) */
    uint32_t nsets;
    const char *steps;      /* --steps DT[xN],... */
} cli_sample_ext;
bool cli_sample_blend(const sk_asset *asset, const cli_sample_ext *x, double t, sk_loop_mode loop, sk_transform *local,
                      float *weights, cJSON *root);
bool cli_sample_graph(const sk_asset *asset, const cli_sample_ext *x, sk_transform *local, float *weights, cJSON *root,
                      double *total_time);
/* The commands (options.h), each in its file: cli/cmd_NAME.c, cli/bench_NAME.c,
 * cli/demo_NAME.c; main.c lists them. */
extern const cli_command cli_cmd_demo;             /* cmd_demo.c */
extern const cli_command cli_cmd_demo_locomotion;  /* demo_walks.c */
extern const cli_command cli_cmd_demo_procedural;  /* demo_walks.c */
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_sample;
extern const cli_command cli_cmd_render;
extern const cli_command cli_cmd_view;
extern const cli_command cli_cmd_analyze;
extern const cli_command cli_cmd_locomote;
extern const cli_command cli_cmd_play;
extern const cli_command cli_cmd_ik;
extern const cli_command cli_cmd_export_mannequin; /* cmd_export.c */
extern const cli_command cli_cmd_export_course;    /* cmd_export.c */
extern const cli_command cli_cmd_convert;          /* cmd_export.c */
extern const cli_command cli_cmd_compress;
extern const cli_command cli_cmd_retarget;
extern const cli_command cli_cmd_bench_retarget;
extern const cli_command cli_cmd_bench_load;       /* cmd_bench.c */
extern const cli_command cli_cmd_bench_json;       /* cmd_bench.c */
extern const cli_command cli_cmd_bench_blend;
extern const cli_command cli_cmd_bench_ik;
extern const cli_command cli_cmd_bench_skin;
extern const cli_command cli_cmd_bench_crowd;
extern const cli_command cli_cmd_bench_terrain;
extern const cli_command cli_cmd_bench_locomotion;
extern const cli_command cli_cmd_bench_sample;     /* bench_pose.c */
extern const cli_command cli_cmd_bench_mix;        /* bench_pose.c */
extern const cli_command cli_cmd_bench_ltm;        /* bench_pose.c */
extern const cli_command cli_cmd_bench_palette;    /* bench_pose.c */
extern const cli_command cli_cmd_bench_sample_compressed; /* bench_compressed.c */
/* Creates the folder that will hold path (one level), if missing; prints and returns false on failure. */
bool cli_make_parent_dir(const char *path);

#endif
