#!/usr/bin/env bash
# Builds the seed corpora of the fuzzing harnesses in OUT/NAME/ (not
# committed: copied at run time): a small selection of ../shared/assets (the
# glTF models with their .bin appended after the separator the harnesses
# split at, the validator corpus's small files), tests/data, the mannequin
# exported by `skelanim export-mannequin` (SK_CLI; without it the committed
# tests/data/blend/mannequin.glb) and the state machines of tests/data and
# docs. The regression corpus fuzz/regress/NAME/ is passed to the fuzzers
# separately.
#   fuzz/seed.sh OUT
set -euo pipefail
out=${1:?usage: fuzz/seed.sh OUT}
src=$(cd "$(dirname "$0")/.." && pwd)
shared=${SK_SHARED_DIR:-$src/../shared}
sep=$'\n#skelanim-fuzz-bin#\n'
psep=$'\n#skelanim-fuzz-params#\n'
rm -rf "$out"
mkdir -p "$out"/{gltf,glb,roundtrip,graph,ik,blend,skin,bvh,skc,retarget,compress,locomote,import}
max=${FUZZ_SEED_MAX_BYTES:-300000}

# A .gltf and its first buffer as one input: JSON, separator, bytes.
add_gltf() { # file name
  local f=$1 name=$2 dir bin
  dir=$(dirname "$f")
  bin=$(grep -o '"uri" *: *"[^"]*\.bin"' "$f" | head -1 | sed 's/.*"\([^"]*\)"$/\1/' || true)
  {
    cat "$f"
    if [[ -n "$bin" && -f "$dir/$bin" ]]; then printf '%s' "$sep"; cat "$dir/$bin"; fi
  } >"$out/gltf/$name"
  if (($(stat -c %s "$out/gltf/$name") > max)); then rm -f "$out/gltf/$name"; return; fi
  cp "$out/gltf/$name" "$out/roundtrip/$name"
}

if [[ -d "$shared/assets/gltf" ]]; then
  for f in "$shared"/assets/gltf/*/glTF/*.gltf "$shared"/assets/gltf/*/*.gltf; do
    [[ -f "$f" ]] && add_gltf "$f" "shared_$(basename "$f")"
  done
  for f in "$shared"/assets/gltf/*/glTF-Binary/*.glb "$shared"/assets/gltf/*/*.glb; do
    [[ -f "$f" ]] || continue
    (($(stat -c %s "$f") <= max)) || continue
    cp "$f" "$out/glb/shared_$(basename "$f")"
    cp "$f" "$out/roundtrip/shared_$(basename "$f")"
  done
  # The validator corpus: every 4th small .gltf / .glb (a spread of valid and invalid files).
  i=0
  while IFS= read -r f; do
    i=$((i + 1))
    ((i % 4 == 0)) || continue
    n="val_$(echo "${f#"$shared"/assets/validator/}" | tr '/' '_')"
    case "$f" in
      *.glb) cp "$f" "$out/glb/$n" ;;
      *) add_gltf "$f" "$n"; cp "$f" "$out/glb/$n" ;;
    esac
  done < <(find "$shared/assets/validator" -type f \( -name '*.gltf' -o -name '*.glb' \) -size -32k | sort)
else
  # tests/lib.sh's rule: with CI set a missing ../shared is a failure.
  source "$src/tests/lib.sh"
  if sk_strict; then
    echo "seed: FAIL: $shared/assets is missing (CI or SK_REQUIRE_SHARED=1 is set)" >&2
    exit 1
  fi
  echo "seed: note: $shared/assets is missing: seeds from the repository only" >&2
fi

for f in "$src"/tests/data/regress/*.gltf; do add_gltf "$f" "regress_$(basename "$f")"; cp "$f" "$out/glb/"; done
mannequin="$out/glb/mannequin.glb"
if [[ -n "${SK_CLI:-}" && -x "$SK_CLI" ]]; then
  ASAN_OPTIONS=detect_leaks=0 "$SK_CLI" export-mannequin "$mannequin" >/dev/null
else
  cp "$src/tests/data/blend/mannequin.glb" "$mannequin"
fi
cp "$mannequin" "$out/roundtrip/"
cp "$mannequin" "$out/gltf/"

# State machines: the JSON alone and with driving bytes.
for f in "$src"/tests/data/regress/*.json "$src"/tests/data/blend/locomotion.json; do
  grep -q '"machine"' "$f" || continue
  cp "$f" "$out/graph/"
  { cat "$f"; printf '%s' "$psep"; printf '\x00\x00\x05\x02\x10\x20\x04\x01\x01\x07\x03\x80\x40\x05\x86\x00\x00\x80\x3f\x04'; } \
    >"$out/graph/driven_$(basename "$f")"
done
# The examples of docs/state-machine.md (```json blocks with a "machine").
awk -v dir="$out/graph" '/^```json/{n++; f=dir "/doc_" n ".json"; on=1; next} /^```/{on=0; next} on{print > f}' \
  "$src/docs/state-machine.md"
for f in "$out"/graph/doc_*.json; do grep -q '"machine"' "$f" || rm -f "$f"; done

# BVH (where the reader exists): tests/data/bvh and the start of two shared captures.
for f in "$src"/tests/data/bvh/*.bvh; do [[ -f "$f" ]] && cp "$f" "$out/bvh/"; done
if [[ -d "$shared/mocap/bvh" ]]; then
  # the first 64 KB of two captures (the hierarchy and the first frames; the frame count then disagrees)
  ls "$shared"/mocap/bvh/*.bvh 2>/dev/null | head -2 | while IFS= read -r f; do
    head -c 65536 "$f" >"$out/bvh/shared_$(basename "$f")"
  done
fi

# .skc: the committed small files (fuzz/regress/skc), and, with SK_CLI, tests/data/bvh compressed.
for f in "$src"/fuzz/regress/skc/*.skc; do [[ -f "$f" ]] && cp "$f" "$out/skc/"; done
if [[ -n "${SK_CLI:-}" ]]; then
  for f in "$src"/tests/data/bvh/base.bvh "$src"/tests/data/bvh/mixed.bvh; do
    "$SK_CLI" compress "$f" -o "$out/skc" --scale 0.01 --json >/dev/null 2>&1 || true
  done
fi

# Retargeting maps: the committed regression inputs and one map per humanoid bone name.
for f in "$src"/fuzz/regress/retarget/*; do [[ -f "$f" ]] && cp "$f" "$out/retarget/"; done
printf '{"map": {"thigh_l": "thigh_r", "thigh_r": "thigh_l"}, "source": {"left_upper_leg": "thigh_r", "right_upper_leg": "thigh_l"}}' >"$out/retarget/swap_legs.json"

# Byte-driven harnesses: a few fixed patterns (the committed regression inputs add more).
for h in ik blend skin; do
  for k in 0 1 2 3; do
    head -c $((64 + k * 700)) /dev/zero | tr '\0' "\\$(printf '%03o' $((k * 37 + 1)))" >"$out/$h/fill_$k"
  done
done
for h in gltf glb roundtrip graph ik blend skin bvh skc retarget; do
  echo "seed: $h: $(find "$out/$h" -type f | wc -l) inputs"
done
