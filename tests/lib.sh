# Sourced by the tests/cli_*.sh tests: the rule for missing prerequisites,
# the same as tests/support.c's.
#
# Strict mode: CI is set to anything but "", "0" or "false" (any case), or
# SK_REQUIRE_SHARED=1. Then a missing prerequisite (../shared, Xvfb, SDL2, a
# tool) is a failure. Otherwise the test prints a note and exits with status
# 77, which ctest reports as skipped (SKIP_RETURN_CODE), never as passed.

SK_SKIP_STATUS=77
sk_skipped_parts=()

sk_strict() {
  local ci=${CI:-}
  ci=${ci,,}
  if [[ -n "$ci" && "$ci" != 0 && "$ci" != false ]]; then return 0; fi
  [[ "${SK_REQUIRE_SHARED:-}" == 1 ]]
}

# The whole test cannot run: sk_missing "reason".
sk_missing() {
  if sk_strict; then
    echo "FAIL: $* (CI or SK_REQUIRE_SHARED=1 is set: a missing prerequisite is a failure)" >&2
    exit 1
  fi
  echo "note: SKIPPED: $* (the test is reported as skipped; with CI set it would fail)"
  exit "$SK_SKIP_STATUS"
}

# One part cannot run: fails in strict mode, else notes it and goes on;
# sk_done then exits 77.
sk_missing_part() {
  if sk_strict; then
    echo "FAIL: $* (CI or SK_REQUIRE_SHARED=1 is set: a missing prerequisite is a failure)" >&2
    exit 1
  fi
  echo "note: SKIPPED: $*"
  sk_skipped_parts+=("$*")
}

# A command the test needs: sk_need_cmd NAME "what installs it".
sk_need_cmd() {
  command -v "$1" >/dev/null 2>&1 || sk_missing "$1 is not installed${2:+ ($2)}"
}

# ../shared (SK_SHARED_DIR) if present: sk_shared_dir prints it, or returns 1.
sk_shared_dir() {
  [[ -n "${SK_SHARED_DIR:-}" && -d "$SK_SHARED_DIR" ]] || return 1
  printf '%s\n' "$SK_SHARED_DIR"
}

# Last line of a test: "name: ok", or exit 77 with the parts that were skipped.
sk_done() {
  if ((${#sk_skipped_parts[@]})); then
    echo "$1: ok, but ${#sk_skipped_parts[@]} part(s) skipped: exit status $SK_SKIP_STATUS (ctest: skipped)"
    printf '  skipped: %s\n' "${sk_skipped_parts[@]}"
    exit "$SK_SKIP_STATUS"
  fi
  echo "$1: ok"
  exit 0
}
