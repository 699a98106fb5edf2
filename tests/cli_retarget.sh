#!/usr/bin/env bash
# skelanim retarget, render --beside and view --beside.
# - A CMU walk retargeted onto the mannequin and the mannequin's walk and run
#   onto CesiumMan: the .glb written loads (info lists the clips), its
#   summary names the clips and the contacts restored, and the Khronos glTF
#   validator (npm gltf-validator, tools/validator) finds no error in it.
# - A capture whose rest pose does not stand (tests/data/retarget: every bone
#   along +X at rest) retargets, and walks the mannequin within the limits of
#   bench locomotion on flat ground and stairs; without its scale, analyze,
#   compress, retarget and locomote --from refuse it naming the scale to give,
#   and info says so; retargeting onto it is refused with the reason.
# - Bad input gives exit status 1 and a message naming the problem, never a
#   crash: a map naming a joint that does not exist, a map that is not JSON,
#   a missing map, a source without hips (a skinned box), skeletons with
#   nothing in common, a source without clips, --clip naming no clip.
# - examples/retarget_capture.c gives the command's clip (02_01 onto the
#   mannequin) through the public API.
# - bench retarget --capture FILE: the swing's figures for the walk on both
#   targets; a missing file fails with its name.
# - render --beside draws the target beside the source: the image differs
#   from the source drawn alone; view --beside under Xvfb writes a screenshot.
# Without ../shared, node, Xvfb or sk_png_diff: tests/lib.sh's rule (a
# failure under CI, else skipped, exit 77).
set -u
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
src=${SK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
validator="$src/tools/validator"
tmp=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
shared=$(sk_shared_dir) || sk_missing "../shared (SK_SHARED_DIR) is absent: no captures to retarget"
walk="$shared/mocap/bvh/02_01.bvh"
cesium="$shared/assets/gltf/CesiumMan/CesiumMan.glb"
[ -f "$walk" ] || fail "$walk is missing"
[ -f "$cesium" ] || fail "$cesium is missing"

# --- a source whose rest pose does not stand (tests/data/retarget/README.md) ---
orients="$src/tests/data/retarget/02_02_orients.bvh"
[ -f "$orients" ] || fail "$orients is missing"
"$SK_CLI" retarget "$orients" @mannequin --scale 0.056444 -o "$tmp/orients.glb" --json > "$tmp/orients.json" ||
  fail "retarget 02_02_orients -> mannequin exited $?"
for t in flat stairs; do
  "$SK_CLI" locomote @mannequin --from "$orients" --from-scale 0.056444 --terrain $t --json > "$tmp/orients_$t.json" ||
    fail "locomote --from 02_02_orients ($t) exited $?"
done
python3 - "$tmp/orients.json" "$tmp/orients_flat.json" "$tmp/orients_stairs.json" <<'EOF' || fail "02_02_orients"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["mapped_joints"] >= 19 and s["clips"][0]["contacts_restored"] >= 2, s
for f in sys.argv[2:]:
    d = json.load(open(f))
    # the limits of bench locomotion
    assert d["path_finished"] and d["slide_max_cm"] < 0.5 and d["contact_max_cm"] < 1 and d["penetration_max_cm"] < 1, d
    assert d["skate"] <= 0.15 and all(0.3 <= x <= 0.6 for x in d["stance_fraction"]) and d["body_low"] > 0.6, d
print("02_02_orients: retargeted, and walked on flat ground and stairs within the limits")
EOF
# read in its own units (not metres) it is refused with the scale to give, by every command whose
# thresholds are in metres, not analysed or compressed against the wrong unit
# onto it (a target whose rest does not stand): refused with the reason, not a clip of garbage
"$SK_CLI" retarget @mannequin "$orients" --scale 0.056444 -o "$tmp/onto.glb" > /dev/null 2> "$tmp/onto.err" &&
  fail "retarget onto 02_02_orients exited 0"
grep -q "the target's rest pose does not stand" "$tmp/onto.err" || fail "retarget onto 02_02_orients: $(cat "$tmp/onto.err")"
"$SK_CLI" info "$orients" | grep -q "note: its legs are 1[0-9.]* units long: the file is not in metres; give --scale" ||
  fail "info $orients does not say the file is not in metres"
for cmd in "analyze $orients" "compress $orients -o $tmp/skc" "retarget $orients @mannequin -o $tmp/x.glb" \
           "locomote @mannequin --from $orients"; do
  $SK_CLI $cmd > "$tmp/units.out" 2> "$tmp/units.err" && fail "$cmd without a scale exited 0"
  grep -q "legs are 1[0-9.]* units long: the file is not in metres; give --.*0.056444 for a CMU capture" "$tmp/units.err" ||
    fail "$cmd without a scale: $(cat "$tmp/units.err")"
done

# --- the command ------------------------------------------------------------
"$SK_CLI" retarget "$walk" @mannequin --scale 0.056444 -o "$tmp/walk.glb" --json > "$tmp/walk.json" ||
  fail "retarget 02_01 -> mannequin exited $?"
cat "$tmp/walk.json"
python3 - "$tmp/walk.json" <<'EOF' || fail "summary of 02_01 -> mannequin"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["contacts"] is True, s
assert s["mapped_joints"] >= 19, s
assert len(s["clips"]) == 1 and s["clips"][0]["name"] == "02_01", s
assert s["clips"][0]["contacts_restored"] >= 4, s
assert s["clips"][0]["pin_error_max_m"] < 0.03, s  # a few samples at the clip's start are out of reach
assert 0.9 < s["root_scale"] < 1.15, s
EOF
"$SK_CLI" info "$tmp/walk.glb" > "$tmp/info.txt" || fail "info on the retargeted file exited $?"
grep -q 'clip 7 "02_01"' "$tmp/info.txt" || fail "the retargeted clip is not the eighth clip (after the mannequin's seven): $(grep clip "$tmp/info.txt")"
grep -q 'clip 1 "walk"' "$tmp/info.txt" || fail "the mannequin's own clips are not kept"

"$SK_CLI" retarget @mannequin "$cesium" --clip walk --clip run -o "$tmp/cesium.glb" --json > "$tmp/cesium.json" ||
  fail "retarget mannequin -> CesiumMan exited $?"
grep -q '"name":"walk"' "$tmp/cesium.json" && grep -q '"name":"run"' "$tmp/cesium.json" ||
  fail "walk and run not both retargeted: $(cat "$tmp/cesium.json")"
"$SK_CLI" retarget @mannequin "$cesium" --clip walk --no-contacts -o "$tmp/nc.glb" --json > "$tmp/nc.json" ||
  fail "retarget --no-contacts exited $?"
grep -q '"contacts":false' "$tmp/nc.json" || fail "--no-contacts still restored contacts: $(cat "$tmp/nc.json")"
grep -q '"swing_up_max_m":0,' "$tmp/nc.json" || fail "--no-contacts still moved the swings: $(cat "$tmp/nc.json")"
# the planted feet levelled over the source's contacts (python/tests/test_retarget_level.py measures
# the result): CMU 02_01's rest holds the foot 23-28 degrees off CesiumMan's bind pose
"$SK_CLI" retarget "$walk" "$cesium" --scale 0.056444 -o "$tmp/lv.glb" --json > "$tmp/lv.json" || fail "retarget 02_01 -> CesiumMan exited $?"
"$SK_CLI" retarget "$walk" "$cesium" --scale 0.056444 --no-level -o "$tmp/nl.glb" --json > "$tmp/nl.json" ||
  fail "retarget --no-level exited $?"
python3 - "$tmp/lv.json" "$tmp/nl.json" <<'EOF' || fail "feet levelling of 02_01 -> CesiumMan"
import json, sys
lv, nl = (json.load(open(p)) for p in sys.argv[1:3])
assert lv["feet_levelled"] is True and nl["feet_levelled"] is False, (lv, nl)
assert all(15 < d < 40 for d in lv["clips"][0]["feet_level_deg"]), lv
assert nl["clips"][0]["feet_level_deg"] == [0, 0], nl
assert lv["feet_levelled_per_contact"] is False, lv
# the feet kept out of the floor: counted and bounded
c = lv["clips"][0]
assert c["floor_raised_keys"] >= 0 and 0 <= c["floor_raise_max_m"] < 0.5, c
# the swings moved for the source's clearance (CesiumMan's swing of 02_01 is lifted): reported, bounded
assert 0 < c["swing_up_max_m"] < 0.5 and 0 <= c["swing_down_max_m"] < 0.5, c
EOF
"$SK_CLI" retarget "$walk" "$cesium" --scale 0.056444 --level-each-contact -o "$tmp/le.glb" --json > "$tmp/le.json" ||
  fail "retarget --level-each-contact exited $?"
grep -q '"feet_levelled_per_contact":true' "$tmp/le.json" || fail "--level-each-contact not reported: $(cat "$tmp/le.json")"
"$SK_CLI" retarget @mannequin "$cesium" --clip walk -o "$tmp/h.glb" 2> "$tmp/human.txt" > /dev/null ||
  fail "retarget without --json exited $?"
grep -q "foot contacts restored" "$tmp/human.txt" || fail "no summary on stderr: $(cat "$tmp/human.txt")"

# --- bad input: exit 1 with a message, never a crash ---------------------------
expect_error() { # expect_error PATTERN ARGS...: exit status 1, PATTERN in stderr
  local pattern=$1
  shift
  "$SK_CLI" retarget "$@" -o "$tmp/bad.glb" 2> "$tmp/err.txt" > /dev/null
  local rc=$?
  [ $rc -eq 1 ] || fail "retarget $* exited $rc (expected 1): $(cat "$tmp/err.txt")"
  grep -q -- "$pattern" "$tmp/err.txt" || fail "retarget $*: no '$pattern' in: $(cat "$tmp/err.txt")"
  echo "refused as expected: $(head -1 "$tmp/err.txt")"
}
echo '{"map": {"NoSuchJoint": "hips"}}' > "$tmp/nojoint.json"
expect_error "NoSuchJoint" "$walk" @mannequin --scale 0.056444 --map "$tmp/nojoint.json"
echo '{"map": {"LeftFoot": "no_such_target"}}' > "$tmp/notarget.json"
expect_error "no_such_target" "$walk" @mannequin --scale 0.056444 --map "$tmp/notarget.json"
echo '{"map": ' > "$tmp/broken.json"
expect_error "broken.json" "$walk" @mannequin --scale 0.056444 --map "$tmp/broken.json"
expect_error "missing.json" "$walk" @mannequin --scale 0.056444 --map "$tmp/missing.json"
expect_error "no hips" "$shared/assets/gltf/BoxAnimated/BoxAnimated.glb" @mannequin
expect_error "no hips" "$shared/assets/gltf/RiggedSimple/RiggedSimple.glb" "$cesium"
expect_error "no hips" @mannequin "$shared/assets/gltf/RiggedSimple/RiggedSimple.glb"
expect_error "no clips" @planar @mannequin
expect_error "give one of them" "$walk" @mannequin --scale 0.056444 --no-level --level-each-contact
expect_error "nosuchclip" @mannequin "$cesium" --clip nosuchclip
[ ! -e "$tmp/bad.glb" ] || fail "a refused retarget wrote its output"

# --- the validator ---------------------------------------------------------------
if command -v node > /dev/null 2>&1 && { [ -f "$validator/node_modules/gltf-validator/package.json" ] ||
  npm ci --prefix "$validator" --no-audit --no-fund >&2; }; then
  for f in walk cesium; do
    node "$validator/validate.mjs" "$tmp/$f.glb" > "$tmp/report.txt"
    rc=$?
    cat "$tmp/report.txt"
    [ $rc -eq 0 ] || fail "the glTF validator reported errors in $f.glb written by retarget"
    grep -q "0 errors" "$tmp/report.txt" || fail "no validator summary for $f.glb"
  done
else
  sk_missing_part "node or the glTF validator (tools/validator, npm ci) is missing: the files were not validated"
fi

# --- render --beside -------------------------------------------------------------
# Mesa (and SDL, Xlib) keep allocations to process exit: leak checking is off for
# the drawing part only (the library's leaks are checked by the C tests and above).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" SDL_AUDIODRIVER=dummy
"$SK_CLI" render "$walk" --scale 0.056444 --beside @mannequin --time 1 --size 240x240 --out "$tmp/beside.png" ||
  fail "render --beside exited $?"
"$SK_CLI" render "$walk" --scale 0.056444 --time 1 --size 240x240 --out "$tmp/alone.png" || fail "render exited $?"
"$SK_CLI" render "$walk" --scale 0.056444 --beside @mannequin --frames 4 --size 160x160 --out "$tmp/beside.gif" ||
  fail "render --beside to a GIF exited $?"
[ -s "$tmp/beside.gif" ] || fail "no GIF written"
"$SK_CLI" render "$walk" --scale 0.056444 --beside "$tmp/nope.glb" --out "$tmp/x.png" 2> "$tmp/err.txt"
[ $? -eq 1 ] && grep -q "nope.glb" "$tmp/err.txt" || fail "render --beside a missing file: $(cat "$tmp/err.txt")"
"$SK_CLI" render "$shared/assets/gltf/BoxAnimated/BoxAnimated.glb" --beside @mannequin --out "$tmp/x.png" 2> "$tmp/err.txt"
[ $? -eq 1 ] && grep -q "no hips" "$tmp/err.txt" || fail "render --beside from a box: $(cat "$tmp/err.txt")"
if [[ -n "${SK_PNG_DIFF:-}" && -x "$SK_PNG_DIFF" ]]; then
  diff=$("$SK_PNG_DIFF" "$tmp/beside.png" "$tmp/alone.png") || fail "sk_png_diff failed"
  set -- $diff
  echo "render --beside vs alone: $1 of $2 pixels differ"
  [ "$1" -gt $(($2 / 50)) ] || fail "render --beside looks like the source alone ($1 of $2 pixels differ)"
else
  sk_missing_part "no sk_png_diff helper (libpng): --beside's image was not compared"
fi

# --- view --beside ---------------------------------------------------------------
view_usage=$("$SK_CLI" view 2>&1 || true)
if grep -q "without SDL2" <<<"$view_usage" || ! command -v xvfb-run > /dev/null 2>&1; then
  sk_missing_part "no SDL2 viewer or no xvfb-run: view --beside was not run"
else
  xvfb-run -a -s "-screen 0 1024x768x24" "$SK_CLI" view @mannequin --beside "$cesium" --frames 3 --size 320x240 \
    --screenshot "$tmp/view.png" > /dev/null || fail "view --beside exited $?"
  [ -s "$tmp/view.png" ] || fail "view --beside wrote no screenshot"
  xvfb-run -a -s "-screen 0 1024x768x24" "$SK_CLI" view @mannequin --frames 3 --size 320x240 \
    --screenshot "$tmp/view_alone.png" > /dev/null || fail "view exited $?"
  if [[ -n "${SK_PNG_DIFF:-}" && -x "$SK_PNG_DIFF" ]]; then
    set -- $("$SK_PNG_DIFF" "$tmp/view.png" "$tmp/view_alone.png")
    echo "view --beside vs alone: $1 of $2 pixels differ"
    [ "$1" -gt $(($2 / 50)) ] || fail "view --beside looks like the source alone"
  fi
fi
# --hands: hand contacts restored too (the JSON says so); with --no-contacts refused
"$SK_CLI" retarget @mannequin @mannequin --clip walk --hands --json -o "$tmp/hands.glb" >"$tmp/hands.json" 2>"$tmp/err" \
  || { cat "$tmp/err"; fail "retarget --hands failed"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["hand_contacts"] is True and "hand_contacts_restored" in d["clips"][0], d' \
  "$tmp/hands.json" || fail "retarget --hands: the JSON does not report hand contacts"
set +e
"$SK_CLI" retarget @mannequin @mannequin --hands --no-contacts -o "$tmp/x.glb" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q -- "--hands restores contacts" "$tmp/err" || fail "--hands with --no-contacts not refused (exit $rc)"

# examples/retarget_capture.c, the same pipeline through the public API: the same clip as the
# command's (the model matrices at five times within 1e-5 m)
example="${SK_BINARY_DIR:?}/example_retarget_capture"
[ -x "$example" ] || fail "$example is missing (built with the tool)"
"$example" "$walk" 0.056444 "$tmp/ex.glb" > "$tmp/ex.txt" || fail "example_retarget_capture exited $?: $(cat "$tmp/ex.txt")"
"$SK_CLI" retarget "$walk" @mannequin --scale 0.056444 -o "$tmp/cli.glb" > /dev/null 2>&1 || fail "retarget 02_01 -> @mannequin"
for t in 0.3 0.9 1.4 2.0 2.6; do
  "$SK_CLI" sample "$tmp/ex.glb" --clip 02_01 --time $t --json > "$tmp/ex_$t.json" || fail "sample the example's clip"
  "$SK_CLI" sample "$tmp/cli.glb" --clip 02_01 --time $t --json > "$tmp/cli_$t.json" || fail "sample the command's clip"
done
python3 - "$tmp" <<'EOF' || fail "example_retarget_capture and skelanim retarget differ"
import json, sys, glob
worst, n = 0.0, 0
for a in sorted(glob.glob(sys.argv[1] + "/ex_*.json")):
    x, y = json.load(open(a)), json.load(open(a.replace("/ex_", "/cli_")))
    def nums(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool): yield float(v)
        elif isinstance(v, list):
            for e in v: yield from nums(e)
        elif isinstance(v, dict):
            for k in sorted(v): yield from nums(v[k])
    p, q = list(nums(x)), list(nums(y))
    assert len(p) == len(q) and len(p) > 100, (len(p), len(q))
    worst = max(worst, max(abs(u - v) for u, v in zip(p, q)))
    n += 1
print("example_retarget_capture vs skelanim retarget: %d times, largest difference %.2g" % (n, worst))
assert n == 5 and worst < 1e-5, worst
EOF

# bench retarget --capture: the walk onto the mannequin and CesiumMan, its swing figures (the
# source's clearance lifts CesiumMan's dragging swing: fewer samples within 1 cm of the ground);
# a missing capture is a failed case, said, exit 1
"$SK_CLI" bench retarget --quick --data "$shared" --capture "$walk" >"$tmp/br.jsonl" 2>"$tmp/err" || { cat "$tmp/err"; fail "bench retarget --capture failed"; }
python3 - "$tmp/br.jsonl" <<'EOF' || fail "bench retarget --capture: swing figures"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cases = [r for r in rows if "swing" in r]
assert [r["target"] for r in cases] == ["mannequin", "CesiumMan"], rows
for r in cases:
    s = r["swing"]
    assert s["swings"] >= 2 and s["samples"] > 50, r
    assert 0.8 <= s["peak_ratio"] <= 1.5, r
print("bench retarget 02_01:", [(r["target"], r["swing"]["low_share"], r["swing"]["low_share_without_source"]) for r in cases])
c = cases[1]["swing"]
assert c["low_share"] < c["low_share_without_source"], c
summary = rows[-1]
assert summary["summary"] == "given" and summary["cases"] == 2 and summary["failed_cases"] == 0, summary
EOF
set +e
"$SK_CLI" bench retarget --quick --data "$shared" --capture "$tmp/none.bvh" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "none.bvh" "$tmp/err" || fail "bench retarget --capture of a missing file: exit $rc, $(cat "$tmp/err")"

sk_done cli_retarget
