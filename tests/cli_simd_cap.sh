#!/usr/bin/env bash
# The SIMD cap (core/simd.h: SKELANIM_SIMD; `skelanim bench ... --simd LEVEL`): every bench
# reports the cap and the level it ran first, the level being the lower of the cap and what the CPU
# has (read here from /proc/cpuinfo, independently of the library); the skinning bench, which times
# every level up to the library's best, then times none above the cap; the environment variable
# does the same as the option; a bad level is refused. In a build without SIMD (-DSK_SIMD=OFF)
# every cap runs at scalar.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian package python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the CPU's level, by its flags
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $flags " == *" $1 "* ]]; }
cpu=scalar
if [[ $(uname -m) == x86_64 ]]; then
  cpu=sse2
  if has avx2 && has fma; then cpu=avx2; if has avx512f && has avx512vl; then cpu=avx512; fi; fi
fi
# a build configured with -DSK_SIMD=OFF (SK_HAVE_SIMD=0) compiled no vector path: its ceiling is scalar
[[ "${SK_HAVE_SIMD:-1}" == 1 ]] || cpu=scalar
rank() { case $1 in scalar) echo 1;; sse2) echo 2;; avx2) echo 3;; avx512) echo 4;; esac; }
lower() { if (( $(rank "$1") < $(rank "$2") )); then echo "$1"; else echo "$2"; fi; }

n=0
for cap in scalar sse2 avx2 avx512; do
  want=$(lower "$cap" "$cpu")
  "$SK_CLI" bench mix --simd "$cap" --count 20 --frames 5 >"$tmp/mix.jsonl"
  python3 - "$tmp/mix.jsonl" "$cap" "$want" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cap, want = sys.argv[2:4]
assert rows[0] == {"bench": "simd", "cap": cap, "level": want}, rows[0]
assert any(r["bench"] == "mix" for r in rows[1:]), rows
PY
  SKELANIM_SIMD=$cap "$SK_CLI" bench skin --vertices 2000 >"$tmp/skin.jsonl"
  python3 - "$tmp/skin.jsonl" "$cap" "$want" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cap, want = sys.argv[2:4]
rank = {"scalar": 1, "sse2": 2, "avx2": 3, "avx512": 4}
assert rows[0] == {"bench": "simd", "cap": cap, "level": want}, rows[0]
levels = {r["simd"] for r in rows if r["bench"] == "skin" and "simd" in r}
assert levels and max(rank[l] for l in levels) == rank[want], (levels, want)  # none above the cap
print("cap %-6s: ran at %-6s; bench skin timed %s" % (cap, want, sorted(levels, key=rank.get)))
PY
  n=$((n + 1))
done
[[ $n -eq 4 ]] || fail "$n caps checked"
# without a cap: no simd line
"$SK_CLI" bench mix --count 20 --frames 5 | head -1 | grep -q '"bench":"mix"' || fail "a simd line without a cap"
# a bad level
if "$SK_CLI" bench mix --simd fast >/dev/null 2>"$tmp/err"; then fail "--simd fast accepted"; fi
grep -qF -- "--simd fast: expected scalar, sse2, avx2 or avx512" "$tmp/err" || { cat "$tmp/err"; fail "message"; }
if "$SK_CLI" bench mix --simd >/dev/null 2>"$tmp/err"; then fail "--simd without a level accepted"; fi
grep -qF -- "--simd needs a level" "$tmp/err" || { cat "$tmp/err"; fail "message"; }
echo "SIMD cap: $n levels checked against the CPU's ($cpu)"
