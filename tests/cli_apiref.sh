#!/usr/bin/env bash
# The API reference (docs/Doxyfile, make docs): doxygen runs over the public
# headers without a warning, and every function the shared libraries export
# (nm -D, as tests/cli_exports.sh reads them) has an entry in its XML output
# with a description that is not empty (tests/apiref.py). The number of
# exported functions checked is printed and must pass a floor, so a run that
# read no library cannot pass. The main page (docs/api.md) is there.
# Needs doxygen, python3 and nm: without them tests/lib.sh's rule applies.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd doxygen "Debian: doxygen; scripts/setup.sh --test installs it"
sk_need_cmd python3 "Debian: python3"
sk_need_cmd nm "Debian: binutils"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

libs=(skelanim skelanim_offline skelanim_io skelanim_batch)
[[ "${SK_HAVE_IMPORT:-1}" == 1 ]] && libs+=(skelanim_import)
: > "$tmp/exported.txt"
for lib in "${libs[@]}"; do
  so="$SK_BINARY_DIR/lib$lib.so"
  [[ -f "$so" ]] || { echo "FAIL: missing $so" >&2; exit 1; }
  nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' >> "$tmp/exported.txt"
done
sort -u "$tmp/exported.txt" -o "$tmp/exported.txt"
n=$(wc -l < "$tmp/exported.txt")
echo "cli_apiref: $n functions exported by ${libs[*]}"
test "$n" -gt 300

(cd "$SK_SOURCE_DIR" && {
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = $tmp/out"
  echo "GENERATE_HTML = NO"
  echo "WARN_LOGFILE = $tmp/warnings.txt"
} | doxygen -)
if [[ -s "$tmp/warnings.txt" ]]; then
  echo "FAIL: doxygen warned ($(wc -l < "$tmp/warnings.txt") lines):" >&2
  sed 's/^/  /' "$tmp/warnings.txt" >&2
  exit 1
fi
grep -q "Conventions" "$tmp/out/xml/indexpage.xml" || { echo "FAIL: the main page (docs/api.md) is missing" >&2; exit 1; }
python3 "$SK_SOURCE_DIR/tests/apiref.py" "$tmp/out/xml" < "$tmp/exported.txt"
sk_done cli_apiref
