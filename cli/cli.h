/* skelanim command-line tool: shared helpers. */
#ifndef SK_CLI_H
#define SK_CLI_H

#include "skelanim.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* The built-in character can be named wherever a file is expected. */
#define SK_CLI_MANNEQUIN "@mannequin"

/* Loads FILE (or the built-in mannequin); prints the error and returns false on failure. */
bool cli_load(const char *path, sk_asset **out);
/* A JSON number formatted with 9 significant digits (float precision); null when not finite. */
cJSON *cli_num(double v);
cJSON *cli_nums(const float *v, int n);
/* Parses a float/int argument strictly; prints an error naming the option on failure. */
bool cli_parse_double(const char *opt, const char *s, double *out);
bool cli_parse_u32(const char *opt, const char *s, uint32_t *out);
/* Resolves a clip given by name or index; -1 for "none"; -2 (after printing) when not found. */
int32_t cli_find_clip(const sk_asset *asset, const char *spec);
/* Joints of the default scene (or all), in file node order: fills out (node_count entries). */
uint32_t cli_scene_nodes(const sk_asset *asset, uint32_t *out_nodes);

int cmd_info(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_export_mannequin(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_ik(int argc, char **argv);   /* cli/cmd_ik.c */
int bench_ik(int argc, char **argv); /* cli/bench_ik.c */

#endif
