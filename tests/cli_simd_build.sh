#!/usr/bin/env bash
# What the build compiled in, read from the machine code (objdump, nm), apart
# from the library's own report (sk_simd_best, checked by test_skin):
#  - configured with -DSK_SIMD=OFF (SK_HAVE_SIMD=0): no shared library and not
#    the tool holds an AVX or AVX-512 instruction (a %ymm or %zmm register, or
#    a VEX-encoded v... instruction on %xmm) or the CPU-feature dispatch
#    (__cpu_model, __cpu_indicator_init of __builtin_cpu_supports, or a call of
#    the library's sk_simd_best from the other libraries): only the
#    plain-C paths, the code a target without x86 vectors runs;
#  - configured with SIMD on x86-64: libskelanim.so and libskelanim_offline.so
#    hold both (the check above can see what it looks for).
# Packed SSE2 instructions are not counted: x86-64 has SSE2 in its base
# instruction set, and the compiler uses it for plain C (GCC vector types,
# vectorised loops) with the same results lane by lane.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_HAVE_SIMD:?}"
sk_need_cmd objdump "Debian: binutils"
sk_need_cmd nm "Debian: binutils"
[[ "$(uname -m)" == x86_64 ]] || { echo "cli_simd_build: not x86-64: no x86 SIMD to look for"; sk_done cli_simd_build; }

# vector NAME FILE: "ymm vex cpu" counts for FILE
vector() {
  local dis
  dis=$(objdump -d --no-show-raw-insn "$1")
  local ymm vex cpu
  ymm=$(grep -cE '%[yz]mm[0-9]' <<< "$dis" || true)
  vex=$(grep -cE '^[[:space:]]+[0-9a-f]+:[[:space:]]+v[a-z0-9]+[[:space:]].*%xmm[0-9]' <<< "$dis" || true)
  # the CPU-feature dispatch: libgcc's, or the library's own level (sk_simd_best, which the
  # other libraries call: an undefined symbol there)
  cpu=$(nm -D "$1" 2>/dev/null | grep -cE '__cpu_model|__cpu_indicator_init| U sk_simd_best' || true)
  cpu=$((cpu + $(nm "$1" 2>/dev/null | grep -cE '__cpu_model|__cpu_indicator_init' || true)))
  echo "$ymm $vex $cpu"
}

fail=0
files=(libskelanim.so libskelanim_offline.so libskelanim_io.so libskelanim_batch.so)
[[ "${SK_HAVE_IMPORT:-1}" == 1 ]] && files+=(libskelanim_import.so)
[[ -f "$SK_BINARY_DIR/skelanim" ]] && files+=(skelanim)
checked=0
for f in "${files[@]}"; do
  p="$SK_BINARY_DIR/$f"
  if [[ ! -f "$p" ]]; then echo "FAIL: missing $p" >&2; fail=1; continue; fi
  read -r ymm vex cpu < <(vector "$p")
  echo "$f: $ymm instructions on %ymm/%zmm, $vex VEX on %xmm, $cpu CPU-dispatch symbols"
  checked=$((checked + 1))
  if [[ "$SK_HAVE_SIMD" == 0 ]]; then
    if ((ymm + vex + cpu)); then
      echo "FAIL: $f: a build configured with -DSK_SIMD=OFF holds AVX code or CPU dispatch" >&2; fail=1
    fi
  elif [[ "$f" == libskelanim.so || "$f" == libskelanim_offline.so ]]; then
    if ((ymm == 0 || vex == 0 || cpu == 0)); then
      echo "FAIL: $f: a SIMD build without AVX kernels or CPU dispatch (or the check sees nothing)" >&2; fail=1
    fi
  fi
done
test "$checked" -ge 4
((fail == 0))
echo "cli_simd_build: $checked files checked (SIMD $([[ "$SK_HAVE_SIMD" == 0 ]] && echo off || echo on))"
sk_done cli_simd_build
