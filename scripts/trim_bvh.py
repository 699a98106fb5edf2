#!/usr/bin/env python3
"""Cut whole frames out of a BVH file's MOTION section, reproducibly.

    scripts/trim_bvh.py IN.bvh OUT.bvh FIRST LAST

Keeps frames FIRST..LAST (0-based, both included) byte for byte, copies the
HIERARCHY and the Frame Time line unchanged and rewrites `Frames:` to the new
count. A range outside the file, or a frame line whose value count differs from
the channel count of the hierarchy, is an error (exit 1).
"""

import sys


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    src, dst = argv[1], argv[2]
    try:
        first, last = int(argv[3]), int(argv[4])
    except ValueError:
        sys.stderr.write("FIRST and LAST must be integers\n")
        return 2
    with open(src) as f:
        lines = f.read().splitlines(keepends=True)
    try:
        m = next(i for i, l in enumerate(lines) if l.strip() == "MOTION")
    except StopIteration:
        sys.stderr.write("%s: no MOTION section\n" % src)
        return 1
    nchan = sum(int(l.split()[1]) for l in lines[:m] if l.strip().startswith("CHANNELS"))
    if not lines[m + 1].strip().startswith("Frames:") or not lines[m + 2].strip().startswith("Frame Time:"):
        sys.stderr.write("%s: expected 'Frames:' and 'Frame Time:' after MOTION\n" % src)
        return 1
    frames = [l for l in lines[m + 3:] if l.strip()]
    declared = int(lines[m + 1].split(":")[1])
    if declared != len(frames):
        sys.stderr.write("%s: Frames: %d but %d frame lines\n" % (src, declared, len(frames)))
        return 1
    if not 0 <= first <= last < len(frames):
        sys.stderr.write("%s: range %d..%d outside 0..%d\n" % (src, first, last, len(frames) - 1))
        return 1
    kept = frames[first:last + 1]
    for k, l in enumerate(kept):
        if len(l.split()) != nchan:
            sys.stderr.write("%s: frame %d has %d values, hierarchy has %d channels\n"
                             % (src, first + k, len(l.split()), nchan))
            return 1
    nl = "\r\n" if lines[m + 1].endswith("\r\n") else "\n"
    with open(dst, "w", newline="") as f:
        f.writelines(lines[:m + 1])
        f.write("Frames: %d%s" % (len(kept), nl))
        f.write(lines[m + 2])
        f.writelines(kept)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
