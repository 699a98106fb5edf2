#!/bin/bash
# Two builds' compressed-pose times side by side, alternated on one core:
#
#   tools/compression/cmp_decoders.sh BIN_A DIR_A BIN_B DIR_B [ROUNDS] [CLIPS]
#
# BIN_A and BIN_B are skelanim binaries; DIR_A and DIR_B hold the .skc files
# each reads (the same folder when both read the same format version; made by
# `skelanim compress ... --fps 24` or at 120 fps, see docs/compression.md).
# For every round and clip, `skelanim bench sample-compressed` runs with A,
# then with B, pinned to core $CORE (default 1). Prints per clip the best
# forward and random-time figure of each (µs per pose), B/A at random times,
# and the medians over the clips. CLIPS defaults to the five CMU clips of
# docs/compression.md's tables.
set -euo pipefail
if [ $# -lt 4 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
A=$1 DA=$2 B=$3 DB=$4 R=${5:-5}
CLIPS=${6:-"01_01 02_01 05_06 131_01 131_03"}
for r in $(seq "$R"); do
    for c in $CLIPS; do
        echo "A $c $(taskset -c "${CORE:-1}" "$A" bench sample-compressed "$DA/$c.skc")"
        echo "B $c $(taskset -c "${CORE:-1}" "$B" bench sample-compressed "$DB/$c.skc")"
    done
done | python3 -c '
import json, statistics, sys
d = {}
for line in sys.stdin:
    w, c, j = line.split(" ", 2)
    j = json.loads(j)
    d.setdefault(c, {}).setdefault(w, []).append((j["forward_us"], j["random_us"]))
print("clip       A_fwd    A_rnd    B_fwd    B_rnd  B/A rnd")
rows = []
for c, v in d.items():
    r = [min(x[0] for x in v["A"]), min(x[1] for x in v["A"]), min(x[0] for x in v["B"]), min(x[1] for x in v["B"])]
    rows.append(r)
    print("%-8s %8.4f %8.4f %8.4f %8.4f   %.3f" % (c, *r, r[3] / r[1]))
m = [statistics.median(r[i] for r in rows) for i in range(4)]
print("median   %8.4f %8.4f %8.4f %8.4f   %.3f" % (*m, m[3] / m[1]))
'
