#!/usr/bin/env bash
# skelanim analyze --plot: the PNG exists, decodes (python3's zlib: no image
# library), has the size the layout of cli/plot.h gives, is not blank, and
# its keytime markers stand in the pixel columns the analysis JSON of the
# same run says: x = round(80 + 910 u) for cycle time u (cli/plot.h), found
# as the column of the plot area holding the most pixels of the marker's
# exact colour. The mannequin's walk and run, and the CMU walk 02_01 with
# --cycle auto (from ../shared). An unwritable path is an error.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # tests/png_read.py
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() { # name, then the analyze arguments
  local name=$1; shift
  "$SK_CLI" analyze "$@" --json --plot "$tmp/$name.png" >"$tmp/$name.json"
  test -s "$tmp/$name.png" || fail "$name: no PNG"
  python3 - "$tmp/$name.png" "$tmp/$name.json" "$name" <<'PY'
import json, struct, sys, zlib
from png_read import decode


png, js, name = sys.argv[1:4]
a = json.load(open(js))["analysis"]
w, h, rows = decode(png)
legs = a["legs"]
# cli/plot.h
WIDTH, LEFT, AREA_W, TITLE_H, PANEL_H, PAD_TOP, AREA_H, BOTTOM_H = 1200, 80, 910, 64, 380, 34, 300, 16
assert (w, h) == (WIDTH, TITLE_H + len(legs) * PANEL_H + BOTTOM_H), (w, h)
white = sum(1 for r in rows for p in r if p == (255, 255, 255))
colours = len({p for r in rows for p in r})
frac = 1 - white / (w * h)
assert frac > 0.05 and colours > 50, "blank: %.3f not white, %d colours" % (frac, colours)
marks = {"stance_time": (0, 150, 150), "foot_strike": (255, 0, 255), "foot_land": (150, 0, 150),
         "foot_lift": (255, 140, 0), "foot_off": (140, 70, 0)}
import math
for k, leg in enumerate(legs):
    top = TITLE_H + k * PANEL_H + PAD_TOP
    order = list(marks)  # the drawing order: a later marker in the same column hides an earlier one
    for i, (key, colour) in enumerate(marks.items()):
        u = leg[key]
        want = math.floor(LEFT + u * AREA_W + 0.5)
        if any(math.floor(LEFT + leg[later] * AREA_W + 0.5) == want for later in order[i + 1:]):
            print("%s leg %d %s: under a later marker in column %d" % (name, k, key, want))
            continue
        counts = [sum(1 for y in range(top, top + AREA_H) if rows[y][x] == colour) for x in range(w)]
        got = max(range(w), key=lambda x: counts[x])
        print("%s leg %d %-11s u %.4f: column %d, expected %d (%d of %d pixels)" % (name, k, key, u, got, want,
              counts[got], AREA_H))
        assert abs(got - want) <= 1, (name, k, key, got, want)
        assert counts[got] >= 0.9 * AREA_H, (name, k, key, counts[got])
print("%s: %dx%d, %.1f%% not white, %d colours: ok" % (name, w, h, 100 * frac, colours))
PY
}

check walk @mannequin
check run @mannequin --clip run
if shared=$(sk_shared_dir) && [[ -f "$shared/mocap/glb/02_01.glb" ]]; then
  check mocap "$shared/mocap/glb/02_01.glb" --cycle auto
else
  sk_missing_part "../shared/mocap/glb/02_01.glb not found: the capture's plot is not checked"
fi

# Text output names the plot; an unwritable path is an error naming it.
"$SK_CLI" analyze @mannequin --plot "$tmp/t.png" | grep -q "^plot: $tmp/t.png$" || fail "no plot line"
if "$SK_CLI" analyze @mannequin --plot "$tmp/no/such/dir/p.png" >/dev/null 2>"$tmp/err.txt"; then
  fail "unwritable path accepted"
fi
grep -q "analyze --plot: cannot write $tmp/no/such/dir/p.png: No such file or directory" "$tmp/err.txt" \
  || { cat "$tmp/err.txt"; fail "no clear message for an unwritable path"; }
if "$SK_CLI" analyze @mannequin --plot >/dev/null 2>&1; then fail "--plot without a path accepted"; fi
sk_done cli_analyze_plot
