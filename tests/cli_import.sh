#!/usr/bin/env bash
# The tool on files it imports through assimp (libskelanim_import): info
# --formats lists them; info, sample, convert, compress and bench load read
# FBX and COLLADA through the one loader dispatch (cli/common.c); a corrupt
# FBX is refused with assimp's message (exit 1, never a crash);
# SKELANIM_ISOLATE=1 parses in a child process with the same result. The
# conversion itself is checked in tests/test_import.c against the glTF reader.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# assimp leaks what it had parsed of a corrupt file (tests/lsan_assimp.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SK_SOURCE_DIR/tests/lsan_assimp.supp:print_suppressions=0"
data="$SK_SOURCE_DIR/tests/data/import"
fbx="$data/RiggedFigure.blender.fbx"
dae="$data/SimpleSkin.blender.dae"

"$SK_CLI" info --formats >"$tmp/formats.jsonl"
cat "$tmp/formats.jsonl"
if [[ "${SK_HAVE_IMPORT:-1}" != 1 ]]; then
  # A build without the importer says so, and refuses an FBX with the way to get one.
  grep -q '"built":false' "$tmp/formats.jsonl" || fail "info --formats: no built:false line"
  if "$SK_CLI" info "$fbx" 2>"$tmp/err.txt"; then fail "an FBX loaded without the importer"; fi
  grep -q "this build reads no .fbx files (configure with -DSK_IMPORT=ON" "$tmp/err.txt" || fail "$(cat "$tmp/err.txt")"
  sk_done cli_import
fi
python3 - "$tmp/formats.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
readers = {l["reader"].split()[0]: l for l in lines}
assert set(readers) == {"gltf", "bvh", "skc", "assimp"}, readers
a = readers["assimp"]
assert a["library"] == "libskelanim_import"
for ext in (".fbx", ".dae"):
    assert ext in a["extensions"], a["extensions"]
assert all(e.startswith(".") for e in a["extensions"])
print("formats: %d readers, assimp %d extensions" % (len(lines), len(a["extensions"])))
PY

# info: the tree the glTF reader gives for RiggedFigure's 19 skin joints, by name.
"$SK_CLI" info "$fbx" >"$tmp/info.txt"
grep -q '^generator: assimp ' "$tmp/info.txt" || fail "generator"
grep -q '^  skin 0 "Proxy": 19 joints$' "$tmp/info.txt" || fail "skin line"
grep -q '^clips: 1$' "$tmp/info.txt" || fail "clips"
for j in torso_joint_1 neck_joint_2 arm_joint_L_3 leg_joint_R_5; do
  grep -q "\"$j\"" "$tmp/info.txt" || fail "joint $j"
done

# sample: a finite pose with every node; the same as SKELANIM_ISOLATE=1 gives.
"$SK_CLI" sample "$fbx" --time 0.5 --json >"$tmp/s.json"
SKELANIM_ISOLATE=1 "$SK_CLI" sample "$fbx" --time 0.5 --json >"$tmp/s_iso.json"
python3 - "$tmp/s.json" "$tmp/s_iso.json" <<'PY'
import json, math, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert len(a["nodes"]) == 23, len(a["nodes"])
na = {n["name"]: n for n in a["nodes"]}; nb = {n["name"]: n for n in b["nodes"]}
assert set(na) == set(nb)
worst = 0.0
for k in na:
    for x, y in zip(na[k]["world"], nb[k]["world"]):
        assert math.isfinite(x)
        worst = max(worst, abs(x - y))
assert worst < 1e-4, worst   # the isolated load goes through a .glb (float32 as well)
print("sample: 23 nodes, isolated load within %.2g" % worst)
PY

# convert to .glb, then the glTF reader reads it back: same skin, same clip length.
"$SK_CLI" convert "$dae" "$tmp/ss.glb" >/dev/null
"$SK_CLI" info "$tmp/ss.glb" >"$tmp/info_glb.txt"
"$SK_CLI" info "$dae" >"$tmp/info_dae.txt"
grep -q '^  clip 0 "Armature": 5.500 s' "$tmp/info_glb.txt" || fail "converted clip: $(grep clip "$tmp/info_glb.txt")"
[[ "$(grep -c '(joint . of skin 0)' "$tmp/info_glb.txt")" == 2 ]] || fail "converted skin joints"

# compress: every clip of an imported file into .skc files.
"$SK_CLI" compress "$fbx" -o "$tmp/skc" >"$tmp/compress.txt"
n=$(find "$tmp/skc" -name '*.skc' | wc -l)
[[ "$n" == 1 ]] || fail "compress wrote $n .skc files"

# bench load on an imported file: both loaders timed, skelanim's with no error.
"$SK_CLI" bench load --quick "$fbx" >"$tmp/bench.jsonl"
python3 - "$tmp/bench.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1 and "error" not in rows[0] and rows[0]["median_ms"] > 0, rows
print("bench load: 1 file timed")
PY

# Corrupt FBX: truncated and overwritten copies; exit 1 with a message naming
# the file and assimp, never a signal (exit >= 128) - also when isolated.
checked=0
size=$(stat -c %s "$fbx")
for cut in 0 27 100 1000 $((size / 2)) zeroed; do
  if [[ $cut == zeroed ]]; then  # the node records' headers overwritten
    cp "$fbx" "$tmp/cut.fbx"
    dd if=/dev/zero of="$tmp/cut.fbx" bs=1 seek=27 count=4000 conv=notrunc status=none
  else
    head -c "$cut" "$fbx" >"$tmp/cut.fbx"
  fi
  for iso in "" 1; do
    set +e
    SKELANIM_ISOLATE=$iso "$SK_CLI" info "$tmp/cut.fbx" >/dev/null 2>"$tmp/err.txt"
    rc=$?
    set -e
    [[ $rc == 1 ]] || fail "truncated at $cut (isolate '$iso'): exit $rc: $(cat "$tmp/err.txt")"
    grep -q "cut.fbx" "$tmp/err.txt" || fail "no file name: $(cat "$tmp/err.txt")"
    checked=$((checked + 1))
  done
done
grep -q "assimp: " "$tmp/err.txt" || fail "no assimp message: $(cat "$tmp/err.txt")"
[[ $checked == 12 ]] || fail "$checked corrupt runs"
echo "corrupt FBX: $checked runs refused with a message"
sk_done cli_import
