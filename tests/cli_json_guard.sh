#!/usr/bin/env bash
# The guard every shell test runs the tool through (tests/skelanim_guard.sh,
# SK_CLI): a command that exits 0 with a non-finite number in its JSON fails
# (issue #14). Checked here on output that has one, and on output that has
# none, with a stand-in for the tool; the real tool's JSON is checked by every
# other shell test.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_SOURCE_DIR:?}"
sk_need_cmd python3 "Debian package python3"
guard="$SK_SOURCE_DIR/tests/skelanim_guard.sh"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nprintf "%%s\\n" "$1"\nexit ${2:-0}\n' >"$tmp/fake"
chmod +x "$tmp/fake"
bad() { # JSON the guard must refuse when the command exits 0
  if SK_CLI_REAL="$tmp/fake" "$guard" "$1" >/dev/null 2>"$tmp/err"; then fail "accepted: $1"; fi
  grep -q "JSON output" "$tmp/err" || { cat "$tmp/err"; fail "no message for: $1"; }
}
good() {
  SK_CLI_REAL="$tmp/fake" "$guard" "$1" >"$tmp/out" || fail "refused: $1"
  [[ "$(cat "$tmp/out")" == "$1" ]] || fail "output changed: $1"
}
bad '{"a":[1,null]}'
bad '{"a":{"b":null}}'
bad '{"a":NaN}'
bad '{"a":[1,Infinity]}'
bad '[1,-Infinity]'
good '{"clip":null,"mask":null,"a":[1,2.5e-300]}'
good 'wrote out.png (480x360, 1 frame)'
good '{"name":"nan_finder","inf":1}'
# a command that fails is not checked (its exit status passes through)
st=0; SK_CLI_REAL="$tmp/fake" "$guard" '{"a":NaN}' 3 >/dev/null 2>&1 || st=$?
[[ $st -eq 3 ]] || fail "exit status $st, expected 3"
sk_done cli_json_guard
