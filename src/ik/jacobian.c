/* Jacobian IK: transpose and damped least squares through the SVD.
 *
 * Seed 002 §7.3: the end effector e = F(Phi) is linearised as
 * delta_e ~ J(Phi) delta_Phi; for a rotational DOF with model-space axis a'_i
 * at joint position r'_i the column is de/dphi_i = a'_i x (e - r'_i). A ball
 * joint is three such DOFs about the model axes at one point (seed 002: more
 * complex joints are chains of 1-DOF joints at distance 0; Buss §2 does the
 * same). With an orientation target the column gains the rows a'_i (scaled by
 * the chain length so that metres and radians weigh alike).
 *
 * - Jacobian transpose (Buss §3): delta_Phi = alpha J^T e with
 *   alpha = <e, J J^T e> / <J J^T e, J J^T e>, the step that minimises the
 *   linearised error along J^T e.
 * - DLS (Buss §5-6): delta_Phi = J^T (J J^T + lambda^2 I)^-1 e
 *   = sum_i sigma_i / (sigma_i^2 + lambda^2) v_i u_i^T e  with J = U D V^T.
 *   We get U and sigma^2 from the eigen-decomposition of the small symmetric
 *   J J^T (3x3 or 6x6, Jacobi rotations) and v_i = J^T u_i / sigma_i, so the
 *   whole SVD costs O(m^2 N). lambda < 0: the pseudo-inverse (singular values
 *   below a threshold dropped — seed 002's "singularity"); lambda = 0:
 *   adaptive damping in the Levenberg-Marquardt manner (seed 002 §7.3 asks
 *   for an adaptive step): lambda halves after a step that lowers the error
 *   and grows fourfold — the step being undone and retried — after one that
 *   does not, so the solver is Gauss-Newton (fast) where the linearisation
 *   holds and close to a short Jacobian-transpose step near singularities
 *   (a chain stretched toward an unreachable target).
 * - The target error is clamped in length (Buss & Kim "ClampMag") and the
 *   per-joint change to options.max_step; limits are applied after each step
 *   (seed 002: values outside are moved to the nearer bound at the end of
 *   every iteration). The best pose seen is returned (seed 002 §7.3). */
#include "ik/solvers.h"

/* Cyclic Jacobi eigen-decomposition of a symmetric m x m matrix (m <= 6).
 * A is destroyed; d gets eigenvalues, V (column k = eigenvector k). */
static void jacobi_eigen(double A[6][6], int m, double V[6][6], double d[6]) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) V[i][j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 32; sweep++) {
        double off = 0.0, diag = 0.0;
        for (int i = 0; i < m; i++) {
            diag += A[i][i] * A[i][i];
            for (int j = i + 1; j < m; j++) off += A[i][j] * A[i][j];
        }
        if (off <= 1e-24 * diag || off == 0.0) break;
        for (int p = 0; p < m; p++)
            for (int q = p + 1; q < m; q++) {
                double apq = A[p][q];
                if (fabs(apq) < 1e-300) continue;
                double theta = (A[q][q] - A[p][p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < m; k++) {
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq;
                    A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < m; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk;
                    A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < m; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq;
                    V[k][q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < m; i++) d[i] = A[i][i];
}

/* Builds the DOF axes and Jacobian columns for the current FK state.
 * Returns the number of DOFs. */
static uint32_t build_jacobian(ik_state *s, int m, float orient_scale) {
    uint32_t n = s->n, k = 0;
    sk_vec3 tip = s->p[n - 1];
    for (uint32_t i = 0; i + 1 < n; i++) {
        sk_vec3 axes[3];
        int na;
        if (s->planar) {
            axes[0] = s->normal;
            na = 1;
        } else if (ik_has_hinge(s, i)) {
            axes[0] = ik_hinge_axis(s, i);
            na = 1;
        } else {
            axes[0] = sk_vec3_make(1, 0, 0);
            axes[1] = sk_vec3_make(0, 1, 0);
            axes[2] = sk_vec3_make(0, 0, 1);
            na = 3;
        }
        sk_vec3 r = sk_vec3_sub(tip, s->p[i]);
        for (int a = 0; a < na; a++) {
            sk_vec3 c = sk_vec3_cross(axes[a], r);
            float *col = &s->jac[6 * k];
            col[0] = c.x;
            col[1] = c.y;
            col[2] = c.z;
            if (m == 6) {
                col[3] = axes[a].x * orient_scale;
                col[4] = axes[a].y * orient_scale;
                col[5] = axes[a].z * orient_scale;
            }
            s->axes[k] = axes[a];
            s->dof_joint[k] = i;
            k++;
        }
    }
    return k;
}

void ik_solve_jacobian(ik_state *s, sk_ik_result *res, bool dls) {
    const sk_ik_options *o = s->opt;
    const uint32_t n = s->n;
    const int m = s->has_orient ? 6 : 3;
    const float L = s->chain_len > 0 ? s->chain_len : 1.0f;
    const float oscale = L;
    const float max_step = o->max_step > 0 ? o->max_step : 0.5f;
    const float dmax = 0.5f * L; /* ClampMag */
    ik_stopper st;
    ik_stopper_init(&st, o, dls ? 256 : 4096, dls ? 16 : 256, s->t_start);
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    uint32_t iter = 0;

    float r = ik_residual(s, s->p[n - 1]);
    float oe = ik_orient_error(s);
    float best = r + (s->has_orient ? oe * oscale : 0.0f);
    const bool lm = dls && o->damping == 0;
    float lm_lambda = 0.01f * L;
    memcpy(s->best, s->lq, n * sizeof(sk_quat));
    if (r <= s->tol && (!s->has_orient || oe <= s->angle_tol)) {
        res->stop = SK_IK_STOP_TOLERANCE;
        res->iterations = 0;
        return;
    }
    for (;;) {
        iter++;
        float e[6];
        sk_vec3 ep = sk_vec3_sub(s->target, s->p[n - 1]);
        float el = skm_vec3_len(ep);
        if (el > dmax) ep = sk_vec3_scale(ep, dmax / el);
        e[0] = ep.x;
        e[1] = ep.y;
        e[2] = ep.z;
        if (m == 6) {
            sk_vec3 w = sk_vec3_scale(skm_quat_log(skm_quat_mul(s->target_r, sk_quat_conjugate(s->R[n - 1]))), oscale);
            float wl = skm_vec3_len(w);
            if (wl > dmax) w = sk_vec3_scale(w, dmax / wl);
            e[3] = w.x;
            e[4] = w.y;
            e[5] = w.z;
        }
        uint32_t N = build_jacobian(s, m, oscale);
        float *dt = s->dtheta;
        if (!dls) {
            /* g = J^T e; alpha = <e, J g> / <J g, J g> */
            float jg[6] = {0};
            for (uint32_t k = 0; k < N; k++) {
                const float *c = &s->jac[6 * k];
                float g = 0;
                for (int a = 0; a < m; a++) g += c[a] * e[a];
                dt[k] = g;
                for (int a = 0; a < m; a++) jg[a] += c[a] * g;
            }
            float num = 0, den = 0;
            for (int a = 0; a < m; a++) {
                num += e[a] * jg[a];
                den += jg[a] * jg[a];
            }
            float alpha = den > 1e-30f ? num / den : 0.0f;
            for (uint32_t k = 0; k < N; k++) dt[k] *= alpha;
        } else {
            double A[6][6] = {{0}}, V[6][6], d[6];
            for (uint32_t k = 0; k < N; k++) {
                const float *c = &s->jac[6 * k];
                for (int a = 0; a < m; a++)
                    for (int b = a; b < m; b++) A[a][b] += (double)c[a] * c[b];
            }
            for (int a = 0; a < m; a++)
                for (int b = 0; b < a; b++) A[a][b] = A[b][a];
            jacobi_eigen(A, m, V, d);
            double smin = INFINITY;
            for (int a = 0; a < m; a++) {
                if (d[a] < 0) d[a] = 0;
                if (sqrt(d[a]) < smin) smin = sqrt(d[a]);
            }
            (void)smin;
            double lambda2;
            bool pinv = o->damping < 0;
            if (o->damping > 0) lambda2 = (double)o->damping * o->damping;
            else if (pinv) lambda2 = 0;
            else lambda2 = (double)lm_lambda * lm_lambda;
            /* f = sum_k u_k (u_k . e) / (sigma_k^2 + lambda^2) */
            double f[6] = {0};
            double thr = 1e-6 * L;
            for (int kk = 0; kk < m; kk++) {
                double s2 = d[kk];
                double inv;
                if (pinv) inv = sqrt(s2) > thr ? 1.0 / s2 : 0.0;
                else inv = s2 + lambda2 > 1e-30 ? 1.0 / (s2 + lambda2) : 0.0;
                double ue = 0;
                for (int a = 0; a < m; a++) ue += V[a][kk] * e[a];
                for (int a = 0; a < m; a++) f[a] += V[a][kk] * ue * inv;
            }
            for (uint32_t k = 0; k < N; k++) {
                const float *c = &s->jac[6 * k];
                double g = 0;
                for (int a = 0; a < m; a++) g += c[a] * f[a];
                dt[k] = (float)g;
            }
        }
        /* Per-joint rotation vectors, capped at max_step. */
        float scale = 1.0f;
        {
            uint32_t k = 0;
            while (k < N) {
                uint32_t i = s->dof_joint[k];
                sk_vec3 w = sk_vec3_make(0, 0, 0);
                for (; k < N && s->dof_joint[k] == i; k++) w = sk_vec3_add(w, sk_vec3_scale(s->axes[k], dt[k]));
                float a = skm_vec3_len(w);
                if (a * scale > max_step) scale = max_step / a;
            }
        }
        {
            uint32_t k = 0;
            while (k < N) {
                uint32_t i = s->dof_joint[k];
                sk_vec3 w = sk_vec3_make(0, 0, 0);
                for (; k < N && s->dof_joint[k] == i; k++) w = sk_vec3_add(w, sk_vec3_scale(s->axes[k], dt[k] * scale));
                sk_quat rp = ik_parent_rot(s, i);
                s->lq[i] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(rp), skm_quat_mul(skm_quat_exp(w), s->R[i])));
            }
        }
        for (uint32_t i = 0; i < n; i++) ik_apply_limit(s, i);
        ik_fk(s, 0);
        r = ik_residual(s, s->p[n - 1]);
        oe = ik_orient_error(s);
        float score = r + (s->has_orient ? oe * oscale : 0.0f);
        if (score < best) {
            best = score;
            memcpy(s->best, s->lq, n * sizeof(sk_quat));
            if (lm) lm_lambda = fmaxf(0.5f * lm_lambda, 1e-5f * L);
        } else if (lm) {
            /* undo the step, damp harder */
            memcpy(s->lq, s->best, n * sizeof(sk_quat));
            ik_fk(s, 0);
            lm_lambda = fminf(4.0f * lm_lambda, 100.0f * L);
        }
        bool conv = r <= s->tol && (!s->has_orient || oe <= s->angle_tol);
        if (ik_stopper_step(&st, iter, score, conv, &why)) break;
    }
    memcpy(s->lq, s->best, n * sizeof(sk_quat));
    ik_fk(s, 0);
    res->stop = why;
    res->iterations = iter;
}
