/* skelanim — skeletal character animation for C11. Umbrella header. */
#ifndef SKELANIM_H
#define SKELANIM_H
#include "skelanim/base.h"
#include "skelanim/math.h"
#include "skelanim/skeleton.h"
#include "skelanim/clip.h"
#include "skelanim/pose.h"
#include "skelanim/asset.h"
#include "skelanim/gltf.h"
#include "skelanim/mannequin.h"
#include "skelanim/player.h"
#include "skelanim/blend.h"
#include "skelanim/graph.h"
#include "skelanim/ik.h"
#include "skelanim/skin.h"
#endif
