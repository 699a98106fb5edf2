#!/usr/bin/env python3
"""The coefficients of the compressed decoder's corrected nlerp (SK_CC_TK and
SK_CC_TKF in src/core/clip_internal.h).

  tools/compression/fit_onlerp.py [I J XMIN NT NH [XMAX]]   (defaults: 3 4 0.5 81 120 1)

  SK_CC_TK:  fit_onlerp.py 3 4 0.5 81 120        (keys up to 120 degrees apart)
  SK_CC_TKF: fit_onlerp.py 4 5 0 81 120 0.5      (keys more than 120 degrees apart)

After A. Kapoulkine, "Approximating slerp" (2015,
https://zeux.io/2015/07/23/approximating-slerp/): nlerp(a, b, t') equals
slerp(a, b, t) when t' / (1 - t') = sin(t th) / sin((1 - t) th), i.e.
t' = 1/2 + tan((t - 1/2) th) / (2 tan(th / 2)) (th: the angle between the
quaternions). t' - t = t (t - 1/2) (t - 1) K with K even in t - 1/2; K is
fitted as sum c[i][j] s^i y^j, s = (t - 1/2)^2 (i <= I), y = 1 - cos th
(1 <= j <= J), over cos th in [XMIN, XMAX] and t in (0, 1) (NH angles, NT - 1
times), by least squares on the angle error, reweighted (Lawson) toward its
largest values. Prints the largest angle error of the fit (double precision)
by band of th and the coefficients. Plain Python (no numpy).
"""
import math
import sys


def lstsq(A, b):
    """Least squares by Householder QR."""
    m, n = len(A), len(A[0])
    A = [r[:] for r in A]
    b = b[:]
    for k in range(n):
        norm = math.sqrt(sum(A[i][k] ** 2 for i in range(k, m)))
        if norm == 0:
            continue
        s = -norm if A[k][k] > 0 else norm
        v = [0.0] * m
        v[k] = A[k][k] - s
        for i in range(k + 1, m):
            v[i] = A[i][k]
        vn = sum(v[i] ** 2 for i in range(k, m))
        if vn == 0:
            continue
        for j in range(k, n):
            d = sum(v[i] * A[i][j] for i in range(k, m)) * 2 / vn
            for i in range(k, m):
                A[i][j] -= d * v[i]
        d = sum(v[i] * b[i] for i in range(k, m)) * 2 / vn
        for i in range(k, m):
            b[i] -= d * v[i]
    x = [0.0] * n
    for k in range(n - 1, -1, -1):
        x[k] = (b[k] - sum(A[k][j] * x[j] for j in range(k + 1, n))) / A[k][k]
    return x


def main():
    args = sys.argv[1:] + ["3", "4", "0.5", "81", "120"][len(sys.argv) - 1:]
    I, J, xmin, NT, NH = int(args[0]), int(args[1]), float(args[2]), int(args[3]), int(args[4])
    xmax = float(args[5]) if len(args) > 5 else 1.0
    thmin, thmax = math.acos(xmax), math.acos(xmin)
    pts = []
    for a in range(1, NH + 1):
        th = thmin + (thmax - thmin) * a / NH
        for b in range(1, NT):
            t = b / NT
            if abs(t - 0.5) < 1e-9:
                continue
            te = math.sin(t * th) / (math.sin(t * th) + math.sin((1 - t) * th))
            w = t * (t - 0.5) * (t - 1)
            pts.append((t, th, 1 - math.cos(th), (t - 0.5) ** 2, w, (te - t) / w))
    terms = [(i, j) for i in range(I + 1) for j in range(1, J + 1)]
    wts = [1.0] * len(pts)
    for _ in range(30):
        A = [[wt * abs(p[4]) * p[1] * p[3] ** i * p[2] ** j for (i, j) in terms] for p, wt in zip(pts, wts)]
        rhs = [wt * abs(p[4]) * p[1] * p[5] for p, wt in zip(pts, wts)]
        c = lstsq(A, rhs)
        errs = []
        for t, th, y, s, w, _K in pts:
            tp = t + w * sum(cc * s ** i * y ** j for cc, (i, j) in zip(c, terms))
            errs.append(abs(math.atan2(tp * math.sin(th), 1 - tp + tp * math.cos(th)) - t * th))
        mx = max(errs)
        wts = [wt * (e / mx + 1e-3) ** 0.5 for wt, e in zip(wts, errs)]
        top = max(wts)
        wts = [wt / top for wt in wts]
    print("I=%d J=%d: largest error %.3g rad between the quaternions (%.3g rad of rotation)" % (I, J, mx, 2 * mx))
    bands = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, thmax]
    for lo, hi in zip([0.0] + bands[:-1], bands):
        e = max((errs[k] for k, p in enumerate(pts) if lo < p[1] <= hi), default=0.0)
        print("  th in (%.2f, %.2f]: %.3g" % (lo, hi, e))
    for i in range(I + 1):
        print("  {" + ", ".join("%.9gf" % c[terms.index((i, j))] for j in range(1, J + 1)) + "},")


if __name__ == "__main__":
    main()
