#!/usr/bin/env bash
# The tool as the shell tests run it (SK_CLI): runs the real binary
# (SK_CLI_REAL) and, when it exits 0 and printed JSON, checks that the JSON
# holds no non-finite number (tests/json_guard.py; issue #14: skelanim never
# exits 0 with a non-finite value in its output). A violation exits 98 with
# the command and the place on stderr.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"${SK_CLI_REAL:?}" "$@" >"$out"
rc=$?
cat "$out"
if [[ $rc -eq 0 ]] && grep -q '^[[:space:]]*[[{]' "$out"; then
  python3 "$(dirname "$0")/json_guard.py" "$out" "skelanim $*" >&2 || exit 98
fi
exit $rc
