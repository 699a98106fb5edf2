/* skelanim — the importer's private parts: the conversion of what assimp
 * returns into an sk_asset, apart from assimp's reading of the file so that
 * it can be tested and fuzzed on scenes built in code (fuzz/fuzz_import.c). */
#ifndef SKELANIM_IMPORT_INTERNAL_H
#define SKELANIM_IMPORT_INTERNAL_H

#include "skelanim/import/import.h"

struct aiScene;

/* Converts a scene (as assimp's post-processing leaves it: triangulated,
 * one primitive type per mesh, UVs flipped) into a new asset. what names the
 * source in messages ("model.fbx"). Trusts nothing in the scene but its
 * pointers and counts agreeing: NaN, out-of-range indices, dangling bone or
 * channel names, cycles or shared nodes in the node graph, decreasing key
 * times are refused or warned about, never read past. */
sk_result sk_import_convert_scene(const struct aiScene *scene, const char *what, const sk_import_options *opts,
                                  sk_asset **out, sk_error *err);

/* The per-mesh influence limit of sk_asset primitives. */
#define SK_IMPORT_MAX_INFLUENCES 8u

#endif
