#!/usr/bin/env bash
# The tool's help comes from its option tables (cli/options.h), and so does
# its reference:
#  (a) docs/cli.md is exactly what `skelanim help --markdown` prints (after a
#      change to a table: ./build/skelanim help --markdown > docs/cli.md);
#  (b) every command README.md names exists: the lines of its code blocks
#      that start with `skelanim ` or `./build/skelanim ` (a `$ ` prompt
#      allowed), and its inline code spans `skelanim CMD ...`; `skelanim help
#      CMD` succeeds for each (CMD: the first word, and the second when the
#      first starts subcommands, as in `bench crowd`);
#  (c) every command of the tables is in `skelanim help`, and `skelanim help
#      CMD` and `skelanim CMD --help` print its usage; the tables are
#      consistent (`skelanim help --commands` checks them: names, defaults);
#  (d) every command refuses an unknown option the same way: exit 1,
#      "skelanim: CMD: unknown option '--no-such-option'" and its usage line.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd python3 "Debian package python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- (a) docs/cli.md is the generated reference ----------------------------------
"$SK_CLI" help --markdown >"$tmp/cli.md"
if ! diff -u "$SK_SOURCE_DIR/docs/cli.md" "$tmp/cli.md" >"$tmp/diff.txt"; then
  head -40 "$tmp/diff.txt"
  fail "docs/cli.md differs from \`skelanim help --markdown\` (regenerate: ./build/skelanim help --markdown > docs/cli.md)"
fi
echo "docs/cli.md: $(wc -l <"$tmp/cli.md") lines, the same as skelanim help --markdown"

# ---- the commands of the tables ----------------------------------------------------
"$SK_CLI" help --commands >"$tmp/commands.txt" || fail "skelanim help --commands: a table is not consistent"
mapfile -t commands <"$tmp/commands.txt"
((${#commands[@]} >= 28)) || fail "only ${#commands[@]} commands in the tables"
# words that start subcommands: the first word of every two-word command
groups=$(printf '%s\n' "${commands[@]}" | awk 'NF == 2 { print $1 }' | sort -u | tr '\n' ' ')

# ---- (b) every command README.md names exists --------------------------------------
python3 - "$SK_SOURCE_DIR/README.md" "$groups" >"$tmp/readme_commands.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
groups = set(sys.argv[2].split())
word = r"([a-z][a-z0-9-]*)(?=[\s`|]|$)"
def command(rest):
    """The command at the start of what follows "skelanim ": one word, or two for a group."""
    m = re.match(word + r"(?:[ \t]+" + word + r")?", rest)
    if not m:
        return None
    if m.group(1) in groups and m.group(2):
        return m.group(1) + " " + m.group(2)
    return m.group(1)
found = []
prose, in_code = [], False
for line in text.splitlines():
    if line.lstrip().startswith("```"):
        in_code = not in_code
        prose.append("")
        continue
    if in_code:
        m = re.match(r"\s*(?:\$ )?(?:\./build/)?skelanim (.*)", line)
        if m and command(m.group(1)):
            found.append(command(m.group(1)))
    else:
        prose.append(line)
# inline code spans (they may go on over a line break)
for span in re.findall(r"`([^`]*)`", "\n".join(prose)):
    m = re.match(r"\s*(?:\./build/)?skelanim\s+(.*)", span.replace("\n", " "), re.S)
    if m and command(m.group(1)):
        found.append(command(m.group(1)))
for c in dict.fromkeys(found):
    print(c)
PY
mapfile -t named <"$tmp/readme_commands.txt"
checked=0
for c in "${named[@]}"; do
  # shellcheck disable=SC2086
  "$SK_CLI" help $c >"$tmp/h.txt" 2>"$tmp/err.txt" || { cat "$tmp/err.txt"; fail "README.md names 'skelanim $c': skelanim help $c fails"; }
  grep -q "^usage: skelanim $c\\b" "$tmp/h.txt" || fail "skelanim help $c: no usage line"
  checked=$((checked + 1))
done
echo "README.md names ${checked} commands, each known to skelanim help: ${named[*]}"
((checked >= 20)) || fail "only $checked commands found in README.md (the extraction is broken?)"

# ---- (c) every command of the tables is in skelanim help, with its own help --------
"$SK_CLI" help >"$tmp/overview.txt"
for c in "${commands[@]}"; do
  grep -q "^  $c\\( \\|\$\\)" "$tmp/overview.txt" || fail "skelanim help does not list '$c'"
  # shellcheck disable=SC2086
  "$SK_CLI" help $c >"$tmp/h1.txt" || fail "skelanim help $c"
  # shellcheck disable=SC2086
  "$SK_CLI" $c --help >"$tmp/h2.txt" || fail "skelanim $c --help"
  cmp -s "$tmp/h1.txt" "$tmp/h2.txt" || fail "skelanim help $c and skelanim $c --help differ"
  head -1 "$tmp/h1.txt" | grep -q "^usage: skelanim $c\\b" || fail "skelanim help $c: no usage line"
done
echo "skelanim help lists the ${#commands[@]} commands of the tables; each prints its help"

# ---- (d) the same refusal of an unknown option everywhere --------------------------
no_sdl=false
view_out=$("$SK_CLI" view 2>&1 || true) # (a pipe into grep would take skelanim's exit status under pipefail)
if grep -q "without SDL2" <<<"$view_out"; then no_sdl=true; fi
for c in "${commands[@]}"; do
  [[ "$c" == view && $no_sdl == true ]] && continue
  st=0
  # shellcheck disable=SC2086
  "$SK_CLI" $c --no-such-option >/dev/null 2>"$tmp/err.txt" || st=$?
  [[ $st == 1 ]] || fail "skelanim $c --no-such-option: exit $st"
  wording="unknown option"
  [[ "$c" == locomote ]] && wording="unknown or incomplete option" # the wording tests/cli_locomote.sh checks
  grep -qF "skelanim: $c: $wording '--no-such-option'" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "$c: unknown option message"; }
  grep -q "^usage: skelanim $c\\b" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "$c: no usage line after the error"; }
done
echo "every command refuses an unknown option with its usage"
# and a few of the other uniform errors
bad() { # message, then the arguments
  local msg=$1 st=0; shift
  "$SK_CLI" "$@" >/dev/null 2>"$tmp/err.txt" || st=$?
  [[ $st == 1 ]] || fail "exit $st for: $*"
  grep -qF -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
}
bad "skelanim: render: --fps needs a value" render @mannequin --out "$tmp/x.png" --fps
bad "skelanim: --fps: 'q' is not a finite number (expected a number in [0.001, 100])" render @mannequin --out "$tmp/x.png" --fps q
bad "skelanim: render: --out is given twice" render @mannequin --out "$tmp/x.png" --out "$tmp/y.png"
bad "skelanim: sample: FILE is required" sample
bad "skelanim: info: unexpected argument 'b.glb'" info a.glb b.glb
bad "skelanim: compress: -o OUTDIR is required" compress a.bvh
bad "skelanim: --loop sideways: expected repeat or clamp" sample @mannequin --time 0 --loop=sideways
bad "skelanim: sample: --json takes no value" sample @mannequin --time 0 --json=yes
bad "(did you mean --time?)" sample @mannequin -time 0
bad "skelanim: bench: unknown subcommand 'nope'" bench nope
bad "skelanim: help: no command 'nope'" help nope
sk_done cli_help
