/* skelanim — skeletal character animation for C11. Umbrella header.
 *
 * The runtime (libskelanim: core, anim, ik, skin, content, world, locomotion) needs
 * nothing but libm; the offline tools (libskelanim_offline: the compressor
 * and resampler), the readers and writers (libskelanim_io: glTF, BVH, .skc,
 * JSON; adds zlib) and the batch update across threads (libskelanim_batch:
 * POSIX threads) are libraries of their own. docs/architecture.md has the
 * layers. */
#ifndef SKELANIM_H
#define SKELANIM_H
/* core: data and the per-frame pipeline */
#include "skelanim/core/base.h"
#include "skelanim/core/math.h"
#include "skelanim/core/simd.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/core/clip.h"
#include "skelanim/core/pose.h"
#include "skelanim/core/palette.h"
#include "skelanim/core/soa.h"
#include "skelanim/core/asset.h"
/* anim: playback, blending, graphs */
#include "skelanim/anim/player.h"
#include "skelanim/anim/rootmotion.h"
#include "skelanim/anim/blend.h"
#include "skelanim/anim/layers.h"
#include "skelanim/anim/soa_layers.h"
#include "skelanim/anim/fader.h"
#include "skelanim/anim/blendspace.h"
#include "skelanim/anim/motor.h"
#include "skelanim/anim/graph.h"
#include "skelanim/anim/retarget.h"
#include "skelanim/anim/mirror.h"
/* ik, skinning, built-in content */
#include "skelanim/ik/ik.h"
#include "skelanim/skin/skinning.h"
#include "skelanim/content/mannequin.h"
#include "skelanim/content/planar.h"
#include "skelanim/content/creature.h"
#include "skelanim/content/sprite.h"
/* world: the ground as a ray-cast query (built-in terrains, triangle meshes) */
#include "skelanim/world/terrain.h"
/* locomotion (seed 002 and 004): motion analysis, synchronisation, foot placement */
#include "skelanim/locomotion/analysis.h"
#include "skelanim/locomotion/contacts.h"
#include "skelanim/locomotion/controller.h"
#include "skelanim/locomotion/footlevel.h"
#include "skelanim/locomotion/locomotor.h"
#include "skelanim/locomotion/legged.h"
#include "skelanim/locomotion/procedural.h"
#include "skelanim/locomotion/sync.h"
/* offline tools (libskelanim_offline): compressor, resampler, shell error */
#include "skelanim/offline/compress.h"
/* batch update across threads (libskelanim_batch: links the thread library) */
#include "skelanim/batch/batch.h"
/* io (libskelanim_io) */
#include "skelanim/io/file.h"
#include "skelanim/io/gltf.h"
#include "skelanim/io/bvh.h"
#include "skelanim/io/skc.h"
#include "skelanim/io/graph_json.h"
#include "skelanim/io/analysis_json.h"
#include "skelanim/io/retarget_json.h"
/* import (libskelanim_import, built when assimp is there: SK_IMPORT): FBX, COLLADA, ... */
#include "skelanim/import/import.h"
#endif
