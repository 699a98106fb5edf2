#!/usr/bin/env python3
"""Rough speed of a BVH capture from its root's horizontal displacement.

    scripts/bvh_root_speed.py [--scale M] FILE.bvh...

For each file: frames, frame time, duration, the root's straight-line horizontal
displacement (the BVH's X and Z; Y is up) from the first to the last frame, the
path length along the way, both in metres (--scale metres per file unit, default
0.056444 for CMU captures), and displacement / duration in m/s. It reads only
the root's position channels; nothing else of the skeleton or the motion.
The count of local minima of the root's height (smoothed over 0.1 s) is printed
too: a walk or run has about two per gait cycle.
"""

import math
import sys


def root_track(path):
    with open(path) as f:
        lines = f.read().splitlines()
    m = next(i for i, l in enumerate(lines) if l.strip() == "MOTION")
    root_ch = None
    nchan = 0
    for l in lines[:m]:
        t = l.split()
        if t and t[0] == "CHANNELS":
            names = t[2:]
            if root_ch is None:
                root_ch = {n.lower(): nchan + k for k, n in enumerate(names)}
            nchan += int(t[1])
    dt = float(lines[m + 2].split(":")[1])
    xs = [root_ch["xposition"], root_ch["yposition"], root_ch["zposition"]]
    track = []
    for l in lines[m + 3:]:
        v = l.split()
        if not v:
            continue
        if len(v) != nchan:
            raise ValueError("%s: a frame has %d values, expected %d" % (path, len(v), nchan))
        track.append(tuple(float(v[i]) for i in xs))
    return dt, track


def main(argv):
    scale = 0.056444
    files = []
    i = 1
    while i < len(argv):
        if argv[i] == "--scale":
            scale = float(argv[i + 1])
            i += 2
        else:
            files.append(argv[i])
            i += 1
    print("file\tframes\tframe_time\tseconds\tdisp_m\tpath_m\tspeed_mps\theight_minima")
    for p in files:
        dt, tr = root_track(p)
        n = len(tr)
        dur = (n - 1) * dt
        dx, dz = tr[-1][0] - tr[0][0], tr[-1][2] - tr[0][2]
        disp = math.hypot(dx, dz) * scale
        path = sum(math.hypot(b[0] - a[0], b[2] - a[2]) for a, b in zip(tr, tr[1:])) * scale
        w = max(1, int(round(0.05 / dt)))
        ys = [tr[k][1] for k in range(n)]
        sm = [sum(ys[max(0, k - w):k + w + 1]) / len(ys[max(0, k - w):k + w + 1]) for k in range(n)]
        minima = sum(1 for k in range(1, n - 1) if sm[k] < sm[k - 1] and sm[k] <= sm[k + 1])
        print("%s\t%d\t%.6f\t%.2f\t%.2f\t%.2f\t%.2f\t%d" %
              (p, n, dt, dur, disp, path, disp / dur if dur > 0 else 0.0, minima))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
