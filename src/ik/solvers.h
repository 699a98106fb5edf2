/* Private: the IK solvers sk_ik_solve (ik.c) dispatches to, one file each.
 * A solver gets the chain state initialised and FK'ed (chain.c) and leaves
 * the solution in s->lq (and s->R, s->p up to date unless noted); it calls
 * only chain.c's and limits.c's services (chain.h), never ik.c or another
 * solver. */
#ifndef SKELANIM_IK_SOLVERS_H
#define SKELANIM_IK_SOLVERS_H

#include "ik/chain.h"

/* ccd.c. max_iterations: 0 = options.max_iterations or the default. */
void ik_solve_ccd(ik_state *s, sk_ik_result *res, uint32_t max_iterations);
/* fabrik.c. Returns the iterations left for switching to CCD when FABRIK
 * stalled on a constrained chain (0: no switch). */
uint32_t ik_solve_fabrik(ik_state *s, sk_ik_result *res);
/* jacobian.c: Jacobian transpose, or damped least squares (dls). */
void ik_solve_jacobian(ik_state *s, sk_ik_result *res, bool dls);
/* twobone.c (3 joints). Stretch scales the middle and tip joints'
 * translations in io_local; s->R, s->p are not updated. */
void ik_solve_two_bone(ik_state *s, const sk_ik_target *target, sk_transform *io_local, sk_ik_result *res);
/* aim.c; ik_aim_result is the result after the write back (aim error). */
void ik_solve_aim(ik_state *s, const sk_ik_target *target, sk_ik_result *res);
void ik_aim_result(const ik_state *s, sk_ik_result *res);

#endif
