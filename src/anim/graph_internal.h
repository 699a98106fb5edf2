/* Private: the state-machine definition shared by the runtime (anim/graph.c)
 * and the JSON loader (io/graph_json.c). Not installed. A graph lives in its
 * own arena; sk_graph_destroy releases it. */
#ifndef SKELANIM_ANIM_GRAPH_INTERNAL_H
#define SKELANIM_ANIM_GRAPH_INTERNAL_H

#include "core/internal.h"
#include "skelanim/anim/blendspace.h"
#include "skelanim/anim/fader.h"
#include "skelanim/anim/graph.h"

#include <string.h>

/* ---- definition ---- */

enum { OP_GT, OP_LT, OP_GE, OP_LE, OP_EQ, OP_NE, OP_TRIGGER };
enum { KIND_CLIP, KIND_BLENDSPACE, KIND_MACHINE, KIND_EXTERNAL };

typedef struct g_cond {
    uint32_t param;
    uint8_t op;
    float value;
} g_cond;

typedef struct g_trans {
    int32_t from; /* -1 = any state */
    uint32_t to;
    float duration;
    sk_fade_curve curve;
    bool sync;
    float exit_time; /* < 0: none */
    g_cond *conds;
    uint32_t ncond;
} g_trans;

typedef struct g_machine g_machine;

typedef struct g_state {
    const char *name;
    int kind;
    float speed;
    sk_loop_mode loop;
    const sk_clip *clip;
    uint32_t clip_index;
    uint32_t bs_n, bs_dim;
    uint32_t bs_param[2];
    sk_blendspace_mode bs_mode;
    float *bs_points;
    const sk_clip **bs_clips;
    uint32_t *bs_clip_index;
    g_machine *sub;
    const char *source;   /* KIND_EXTERNAL: the name handed to the instance's pose source */
    float cycle;          /* KIND_EXTERNAL: seconds per cycle (normalised time, exit_time, sync) */
} g_state;

struct g_machine {
    g_state *states;
    uint32_t nstates;
    uint32_t initial;
    g_trans *trans;
    uint32_t ntrans;
};

struct sk_graph {
    sk_arena arena;
    const sk_skeleton *skel;
    uint32_t nparams;
    const char **pnames;
    sk_param_type *ptypes;
    float *pdefault;
    g_machine *root;
    int32_t rm_joint;          /* root-motion joint or -1 */
    uint32_t nclips;
    sk_root_motion **rm;       /* per clip index (NULL when unused or no root motion) */
    sk_allocator alloc;
};

static inline int32_t find_param(const sk_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->nparams; i++)
        if (!strcmp(g->pnames[i], name)) return (int32_t)i;
    return -1;
}

#endif
