#!/usr/bin/env bash
# Runs every libFuzzer harness of BUILD (a -DSK_FUZZ=ON build) for SECONDS
# each, one after another, on one core: the corpus in BUILD/fuzz-corpus/NAME
# (grows across runs), seeds from fuzz/seed.sh in BUILD/fuzz-seed/NAME, the
# committed regression corpus fuzz/regress/NAME, the harness's dictionary
# (fuzz/NAME.dict; gltf.dict for glb and roundtrip). Without NAMEs: every
# harness the build has.
# Crashes, leaks and hangs (-timeout, -rss_limit_mb) are written to
# BUILD/fuzz-artifacts/NAME/ and fail the run. Prints per harness the
# executions, coverage (edges reached / instrumented) and the result; logs
# in BUILD/fuzz-logs/NAME.log.
#   fuzz/run.sh BUILD SECONDS [NAME...]
set -uo pipefail
build=${1:?usage: fuzz/run.sh BUILD SECONDS [NAME...]}
secs=${2:?usage: fuzz/run.sh BUILD SECONDS [NAME...]}
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then # every harness the build has
  for f in "$build"/fuzz/fuzz_*; do
    [[ -x "$f" && "$f" != *fuzz_replay_* ]] && harnesses+=("${f##*/fuzz_}")
  done
  ((${#harnesses[@]})) || { echo "fuzz: no harness in $build/fuzz (build with -DSK_FUZZ=ON)" >&2; exit 1; }
fi
if [[ ! -d "$build/fuzz-seed" ]]; then
  SK_CLI=${SK_CLI:-} bash "$src/fuzz/seed.sh" "$build/fuzz-seed" >/dev/null || { echo "fuzz: seeding failed" >&2; exit 1; }
fi
failed=0
printf '%-10s %10s %9s %14s %8s  %s\n' harness seconds execs "edges" corpus result
for h in "${harnesses[@]}"; do
  bin="$build/fuzz/fuzz_$h"
  if [[ ! -x "$bin" ]]; then echo "fuzz: $bin is missing (build with -DSK_FUZZ=ON)" >&2; failed=1; continue; fi
  dict="$src/fuzz/$h.dict"
  [[ $h == glb || $h == roundtrip ]] && dict="$src/fuzz/gltf.dict"
  dictopt=()
  [[ -f "$dict" ]] && dictopt=(-dict="$dict")
  mkdir -p "$build/fuzz-corpus/$h" "$build/fuzz-artifacts/$h" "$build/fuzz-logs" "$build/fuzz-seed/$h" # a harness without seeds
  log="$build/fuzz-logs/$h.log"
  start=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    "${dictopt[@]}" -artifact_prefix="$build/fuzz-artifacts/$h/" \
    "$build/fuzz-corpus/$h" "$build/fuzz-seed/$h" "$src/fuzz/regress/$h" >"$log" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  total=$(grep -o 'Loaded [0-9]* modules *([0-9]* inline 8-bit counters)' "$log" | grep -o '([0-9]*' | tr -d '(' | head -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  corpus=$(find "$build/fuzz-corpus/$h" -type f | wc -l)
  result=ok
  if ((rc != 0)); then
    result="FAILED (exit $rc): $(ls "$build/fuzz-artifacts/$h" | head -3 | tr '\n' ' ')see $log"
    failed=1
  fi
  printf '%-10s %10s %9s %14s %8s  %s\n' "$h" "$took" "${execs:-?}" "${cov:-?}/${total:-?}" "$corpus" "$result"
done
exit "$failed"
