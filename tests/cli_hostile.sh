#!/usr/bin/env bash
# Hostile input through the command-line tool (issue #14; docs/robustness.md):
# the regression inputs of tests/data/regress/ and hand-made bad options. Every
# refusal exits 1 with one line naming the file at most once; no command that
# exits 0 prints a non-finite value (null, nan, inf) where a number belongs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
reg="$SK_SOURCE_DIR/tests/data/regress"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The JSON a command printed, when it exited 0, holds no non-finite number:
# no NaN/Infinity token and no null inside an array (every array the tool
# prints holds numbers, names or objects) or under a numeric key.
scan_json() { # file, label
  python3 - "$1" "$2" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
if re.search(r'\b(nan|NaN|inf|Infinity)\b', text):
    sys.exit("%s: non-finite token in the output" % sys.argv[2])
allowed_null = {"mask", "clip", "exit_time"}  # documented: "none"
def walk(v, path):
    if v is None:
        key = path.rsplit("/", 1)[-1]
        if key.isdigit() or key not in allowed_null:
            sys.exit("%s: null at %s" % (sys.argv[2], path or "/"))
    elif isinstance(v, dict):
        for k, x in v.items(): walk(x, path + "/" + k)
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, "%s/%d" % (path, i))
for line in text.splitlines() or [text]:
    line = line.strip()
    if line.startswith("{") or line.startswith("["):
        try: walk(json.loads(line), "")
        except ValueError: walk(json.loads(text), ""); break
PY
}

# ok LABEL ARGS...: exit 0 and finite JSON. bad LABEL MESSAGE ARGS...: exit 1,
# the message on stderr in one line (besides the reader's warnings).
ok() {
  local label=$1; shift
  "$SK_CLI" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "$label: exit $? for: $*"; }
  scan_json "$tmp/out" "$label" || fail "$label: non-finite output for: $*"
  echo "ok   $label"
}
bad() {
  local label=$1 msg=$2; shift 2
  local st=0
  "$SK_CLI" "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  [[ $st == 1 ]] || { cat "$tmp/out" | head -c 400; fail "$label: exit $st (expected 1) for: $*"; }
  grep -qF -- "$msg" "$tmp/err" || { cat "$tmp/err"; fail "$label: no '$msg' for: $*"; }
  [[ $(grep -vc ": warning: " "$tmp/err") == 1 ]] || { cat "$tmp/err"; fail "$label: not one line of error"; }
  echo "bad  $label: $(cat "$tmp/err")"
}
# The file is named once in the message.
once() { # label path args...
  local label=$1 path=$2; shift 2
  "$SK_CLI" "$@" >/dev/null 2>"$tmp/err" && fail "$label: exit 0"
  local n
  n=$(grep -oF -- "$path" "$tmp/err" | wc -l)
  [[ $n == 1 ]] || { cat "$tmp/err"; fail "$label: '$path' named $n times"; }
  echo "once $label: $(cat "$tmp/err")"
}

# ---- finding 2: a 263-byte file claiming 89 million zero vertices ----------------
bad "f2 zero accessor" "zero-filled: it has no bufferView) would pass the decoded-data limit" info "$reg/f2_zero_accessor.gltf"

# ---- finding 3: a buffer that is a symbolic link out of the model's folder ------
mkdir -p "$tmp/f3/model"
printf 'TOP-SECRET-BYTES-TOP-SECRET-BYTES' >"$tmp/f3/secret.bin"
cp "$reg/f3_symlink_buffer.gltf" "$tmp/f3/model/m.gltf"
ln -s ../secret.bin "$tmp/f3/model/link.bin"
bad "f3 symlink out" "resolves (through a symbolic link) to a file outside the model's folder" info "$tmp/f3/model/m.gltf"
if grep -q "SECRET\|secret.bin" "$tmp/err"; then fail "f3: the outside file shows in the message"; fi
cp "$reg/f3_fifo_buffer.gltf" "$tmp/f3/model/fifo.gltf"
mkfifo "$tmp/f3/model/pipe.bin"
st=0; timeout 20 "$SK_CLI" info "$tmp/f3/model/fifo.gltf" >/dev/null 2>"$tmp/err" || st=$?
[[ $st == 1 ]] && grep -q "is a FIFO" "$tmp/err" || { cat "$tmp/err"; fail "f3: FIFO buffer: exit $st"; }
echo "bad  f3 FIFO: $(cat "$tmp/err")"

# ---- finding 4: zero-filled key times and inverse binds: warned about, never written
for f in f4_zero_key_times f4_zero_inverse_bind; do
  "$SK_CLI" info "$reg/$f.gltf" >/dev/null 2>"$tmp/err" || fail "f4: info $f"
  grep -q "^skelanim: $reg/$f.gltf: warning: .*has no bufferView" "$tmp/err" || { cat "$tmp/err"; fail "f4: no warning for $f"; }
  echo "warn f4 $f: $(cat "$tmp/err")"
  bad "f4 convert $f" "the glTF reader would refuse the file" convert "$reg/$f.gltf" "$tmp/$f.glb"
  [[ ! -e "$tmp/$f.glb" ]] || fail "f4: $f.glb was written"
done

# ---- finding 5: finite but huge values -----------------------------------------
bad "f5 huge translation" "/nodes/0: its world transform can reach a translation of 3e+38" \
  sample "$reg/f5_huge_translation.gltf" --time 0
bad "f5 huge key" "beyond the limit of 1e+15 (SK_GLTF_MAX_WORLD)" sample "$reg/f5_huge_key.gltf" --time 0.5 --clip 0
bad "f5 ik target 3e38" "--target: '3e38,0,0' is outside" ik @mannequin --chain thigh_l:toe_l --target 3e38,0,0
for solver in fabrik ccd jt dls aim; do
  ok "f5 ik far target ($solver)" ik @mannequin --chain thigh_l:toe_l --target 1e6,0.5,-1e6 --solver $solver --json
done

# ---- finding 6: one numeric parser ---------------------------------------------
ok "f6 subnormal time" sample @mannequin --time 1e-320
ok "f6 hex time" sample @mannequin --time 0x1p-3
bad "f6 nan time" "--time: 'nan' is not a finite number" sample @mannequin --time nan
bad "f6 vertex -1" "--vertex: '-1:-1:-1' is not a non-negative integer" sample @mannequin --time 0 --vertex -1:-1:-1
bad "f6 negative weight" "--weight: '-1' is outside [0, 1000]" sample @mannequin --time 0 --clip walk --weight -1 --clip run
bad "f6 set 1e300" "--set: '1e300' is outside" sample @mannequin --graph "$reg/f6_graph.json" --set speed=1e300
bad "f6 steps 1e300" "--steps: '1e300' is outside [0, 10000]" sample @mannequin --graph "$reg/f6_graph.json" --steps 1e300
bad "f1 steps 1e30x2" "--steps: '1e30' is outside [0, 10000]" sample @mannequin --graph "$reg/f6_graph.json" --steps 1e30x2
bad "f6 steps count" "more than 1000000 updates" sample @mannequin --graph "$reg/f6_graph.json" --steps 0.1x1000000,0.1
bad "f6 max-iterations -1" "--max-iterations: '-1' is not a non-negative integer" \
  ik @mannequin --chain thigh_l:foot_l --target 0,0.5,0.2 --max-iterations -1
bad "f6 size negative" "--size: '-16x16' is not a non-negative integer" render @mannequin --size -16x16 --out "$tmp/x.png"
bad "f6 clip -1" "--clip -1: no such clip" sample @mannequin --time 0 --clip -1
ok "f6 steps total" sample @mannequin --graph "$reg/f6_graph.json" --steps 0.5x4
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(d["time"] - 2.0) < 1e-12, d["time"]' "$tmp/out" \
  || fail "f6: --steps 0.5x4 does not report 2 s"
# a directory, a missing file, a bad file: said so, the file named once
mkdir -p "$tmp/dir.glb"
bad "f6 directory" "$tmp/dir.glb: is a directory" info "$tmp/dir.glb"
once "f6 directory once" "$tmp/dir.glb" info "$tmp/dir.glb"
once "f6 missing once" "$tmp/missing.gltf" info "$tmp/missing.gltf"
printf '{' >"$tmp/broken.gltf"
once "f6 syntax once" "$tmp/broken.gltf" sample "$tmp/broken.gltf" --time 0
once "f6 graph once" "$tmp/broken.gltf" sample @mannequin --graph "$tmp/broken.gltf"

sk_done cli_hostile
