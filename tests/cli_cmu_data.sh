#!/usr/bin/env bash
# The CMU capture sets of tests/data/cmu and tests/data/cmu-walks (their
# README.md): scripts/cmu_data_check.py verifies the sha256s, frame counts, split
# files and split rules, and that no trial is in two sets or also in
# ../shared/mocap/bvh or tests/data/mocap; then every file loads with skelanim
# info as one clip whose duration is the README's (frames - 1) / fps.
# Only loading: no analysis, locomotion, retargeting or compression is run on
# these files (the reporting half's walks and runs stay unseen).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd python3 "apt-get install python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
dir="$SK_SOURCE_DIR/tests/data/cmu"
check="$SK_SOURCE_DIR/scripts/cmu_data_check.py"
expected=45   # the files the README lists

not_in=(--not-in "$SK_SOURCE_DIR/tests/data/mocap")
if shared=$(sk_shared_dir) && [[ -d "$shared/mocap/bvh" ]]; then
  not_in+=(--not-in "$shared/mocap/bvh")
else
  sk_missing_part "../shared/mocap/bvh (no check that these trials are not also there)"
fi

walks="$SK_SOURCE_DIR/tests/data/cmu-walks"
walks_expected=18   # the files its README lists, every one in the tuning half
python3 "$check" "$dir" "${not_in[@]}" --not-in "$walks" --list >"$tmp/list.txt"
n=$(wc -l <"$tmp/list.txt")
((n == expected)) || fail "$n files listed, want $expected"
((n == $(ls "$dir"/*.bvh | wc -l))) || fail "the folder holds another number of .bvh files than $n"
python3 "$check" "$walks" --all-tuning --min-files "$walks_expected" "${not_in[@]}" --not-in "$dir" --list \
  >"$tmp/list_walks.txt"
n=$(wc -l <"$tmp/list_walks.txt")
((n == walks_expected)) || fail "cmu-walks: $n files listed, want $walks_expected"
((n == $(ls "$walks"/*.bvh | wc -l))) || fail "cmu-walks holds another number of .bvh files than $n"
# its rule is not the alternating one: checked as such, it fails
if python3 "$check" "$walks" --min-files "$walks_expected" 2>"$tmp/err.txt"; then fail "cmu-walks passed the alternating rule"; fi
grep -q "07_03.bvh: split.tsv says tuning, the rule gives reporting" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no rule failure on cmu-walks"; }

# The checker catches what it is for: a changed byte, a half that breaks the rule.
mkdir "$tmp/bad"
for f in "$dir"/*; do ln -s "$f" "$tmp/bad/"; done
rm "$tmp/bad/02_04.bvh"
python3 - "$dir/02_04.bvh" "$tmp/bad/02_04.bvh" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = max(b.rfind(bytes([c])) for c in b"0123456789")   # the last digit of the last frame
b[i] = ord("1") if b[i] == ord("0") else ord("0")
open(sys.argv[2], "wb").write(b)
PY
cmp -s "$dir/02_04.bvh" "$tmp/bad/02_04.bvh" && fail "the test did not change 02_04.bvh"
if python3 "$check" "$tmp/bad" 2>"$tmp/err.txt"; then fail "checker accepted a changed file"; fi
grep -q "02_04.bvh: sha256" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no sha256 failure"; }
ln -sf "$dir/02_04.bvh" "$tmp/bad/02_04.bvh"
rm "$tmp/bad/split.tsv"
awk -F'\t' -v OFS='\t' '$1 == "09_03.bvh" { $2 = ($2 == "tuning") ? "reporting" : "tuning" } 1' \
  "$dir/split.tsv" >"$tmp/bad/split.tsv"
if python3 "$check" "$tmp/bad" 2>"$tmp/err.txt"; then fail "checker accepted a broken split"; fi
grep -q "09_03.bvh: split.tsv says .*, the rule gives" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no rule failure"; }

# Every file loads: one clip, 38 nodes (31 joints and 7 end sites), its duration.
count=0
sed "s|^|$dir/|" "$tmp/list.txt" >"$tmp/all.txt"
sed "s|^|$walks/|" "$tmp/list_walks.txt" >>"$tmp/all.txt"
while read -r path frames fps; do
  name=$(basename "$path")
  "$SK_CLI" info "$path" --scale 0.056444 >"$tmp/info.txt" || fail "info $name"
  grep -q '^units: 0.056444 per file unit (--scale)$' "$tmp/info.txt" || fail "$name: units line"
  grep -q '^nodes: 38 ' "$tmp/info.txt" || fail "$name: not 38 nodes"
  grep -q '^clips: 1$' "$tmp/info.txt" || fail "$name: not one clip"
  secs=$(sed -n 's/^  clip 0 "[^"]*": \([0-9.]*\) s, 32 tracks: .*/\1/p' "$tmp/info.txt")
  [[ -n "$secs" ]] || { cat "$tmp/info.txt"; fail "$name: no clip line with 32 tracks"; }
  echo "$name $frames $fps $secs" >>"$tmp/secs.txt"
  count=$((count + 1))
done <"$tmp/all.txt"
((count == expected + walks_expected)) || fail "loaded $count files, want $((expected + walks_expected))"
# Half a frame (1/240 s) tells frame counts apart; info prints milliseconds.
python3 - "$tmp/secs.txt" <<'PY'
import sys
bad = [l for l in open(sys.argv[1]) if abs(float(l.split()[3]) - (int(l.split()[1]) - 1) / int(l.split()[2])) > 0.0015]
for l in bad:
    print("FAIL: duration is not (README frames - 1) / fps: " + l.strip())
sys.exit(1 if bad else 0)
PY
echo "loaded $count files with skelanim info"
sk_done cli_cmu_data
