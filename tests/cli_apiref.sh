#!/usr/bin/env bash
# The API reference (docs/Doxyfile, make docs): doxygen runs over the public
# headers without a warning, and every function the shared libraries export
# (nm -D, as tests/cli_exports.sh reads them) has an entry in its XML output
# with a description that is not empty (tests/apiref.py). The number of
# exported functions checked is printed and must pass a floor, so a run that
# read no library cannot pass. The main page (docs/api.md) is there, and so
# are the porting guides (docs/porting-*.md) with their programs.
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
# The porting guides are pages of the reference: each titled, with its whole
# program (code blocks with at least the non-blank lines of
# examples/porting/from_NAME.c).
for guide in ozz:ozz-animation threejs:three.js raylib:raylib; do
  name=${guide%%:*} title=${guide#*:}
  xml="$tmp/out/xml/md_porting_$name.xml"
  [[ -f "$xml" ]] || { echo "FAIL: docs/porting-$name.md is not a page of the reference ($xml)" >&2; exit 1; }
  grep -q "<title>Coming from $title</title>" "$xml" || { echo "FAIL: $xml: no title 'Coming from $title'" >&2; exit 1; }
  lines=$(grep -c . "$SK_SOURCE_DIR/examples/porting/from_$name.c")
  shown=$(grep -c '<codeline>' "$xml" || true)
  if (( shown < lines )); then
    echo "FAIL: $xml shows $shown code lines, examples/porting/from_$name.c has $lines non-blank lines" >&2; exit 1
  fi
  echo "cli_apiref: docs/porting-$name.md is a page, $shown code lines (the program: $lines non-blank lines)"
done
python3 "$SK_SOURCE_DIR/tests/apiref.py" "$tmp/out/xml" < "$tmp/exported.txt"
sk_done cli_apiref
