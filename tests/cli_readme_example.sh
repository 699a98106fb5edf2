#!/usr/bin/env bash
# The README's C example is the code of examples/readme_quickstart.c (every
# line of the README's first ```c block stands in the file, in order), and
# that program, built by CMake, runs on the built-in character written as
# .glb: 22 joints (every node), a finite palette.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}" "${SK_CLI_REAL:?}"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$SK_SOURCE_DIR/README.md" "$SK_SOURCE_DIR/examples/readme_quickstart.c" <<'EOP'
import re, sys
readme, src = open(sys.argv[1]).read(), open(sys.argv[2]).read().split('\n')
m = re.search(r'```c\n(.*?)```', readme, re.S)
assert m, "README.md has no ```c block"
lines = [l for l in m.group(1).split('\n') if l.strip()]
assert len(lines) >= 10, f"the README's example has {len(lines)} lines"
at = 0
for l in lines:
    while at < len(src) and src[at].strip() != l.strip():
        at += 1
    if at == len(src):
        sys.exit(f"README.md's example line is not in examples/readme_quickstart.c (in order): {l}")
print(f"README example: {len(lines)} lines, all in examples/readme_quickstart.c")
EOP
"$SK_CLI_REAL" export-mannequin "$tmp/m.glb" >/dev/null
"$SK_BINARY_DIR/example_readme_quickstart" "$tmp/m.glb" > "$tmp/out.txt"
cat "$tmp/out.txt"
grep -Eq '^22 joints, palette\[0\] translation -?[0-9]+\.[0-9]{3} -?[0-9]+\.[0-9]{3} -?[0-9]+\.[0-9]{3}$' "$tmp/out.txt"
if "$SK_BINARY_DIR/example_readme_quickstart" "$tmp/missing.glb" 2>"$tmp/err.txt"; then exit 1; fi
grep -q 'missing.glb' "$tmp/err.txt"
echo "README example: runs, and reports a missing file"
