#!/usr/bin/env python3
"""Check the CMU capture set of tests/data/cmu against its README and split file.

    scripts/cmu_data_check.py [DIR] [--sources SRCDIR] [--not-in DIR ...] [--list]
                              [--all-tuning] [--min-files N]

DIR (default: tests/data/cmu beside this script's checkout) holds the .bvh
files, README.md and split.tsv. Checked, each independently of skelanim:

- the same set of .bvh files in the folder, in split.tsv and in both README
  tables; split.tsv's header, halves, kinds, scale 0.056444 and fps 120;
  kind and half the same in split.tsv and the README;
- the split follows the rule the README states: within each kind, files in
  (subject, trial) order, the 1st, 3rd, 5th, ... tuning and the others
  reporting;
- each file's sha256 is the README's; its MOTION section has the README's
  frame count (`Frames:` and the number of frame lines), a Frame Time of
  1/fps, as many finite values per frame as the hierarchy has channels; the
  README's seconds are frames / fps;
- at least 40 files (--min-files N: N), at least 10 of them walks or runs
  (with --min-files N below 10: N).

--all-tuning: the folder's rule is instead that every file is in the tuning
half (tests/data/cmu-walks, its README).

--sources SRCDIR: SRCDIR holds the source files under their base names
(01_02.bvh, ...; README, "Where they came from"). Each source's sha256 must
be the README's, and cutting the README's frame range out of it must give our
file byte for byte (scripts/trim_bvh.py's rule: the hierarchy and Frame Time
line copied, `Frames:` rewritten, the kept frame lines copied).

--not-in DIR: no file here is a CMU trial (SS_TT at the start of a name)
that a .bvh file in DIR also holds. May be repeated.

--list: after the checks, print one line per file: name, frames, fps.

Exit status 0 when every check passes, 1 with the failures on stderr.
"""

import hashlib
import math
import os
import re
import sys

SCALE = "0.056444"
FPS = 120
KINDS = ("walk", "run", "other")
HALVES = ("tuning", "reporting")

ROW1 = re.compile(r"^\| `(\d+_\d+\.bvh)` \| subject (\d+), trial (\d+) \| (.+?) \| (walk|run|other) \| "
                  r"(tuning|reporting) \| (\d+) \| (\d+) \| (\d+\.\d\d) \| (\d+)\.\.(\d+) of 0\.\.(\d+)"
                  r"(?: \(cut at 20 s\))? \|$")
ROW2 = re.compile(r"^\| `(\d+_\d+\.bvh)` \| `([^`]+)` \| `([0-9a-f]{64})` \| `([0-9a-f]{64})` \|$")
TRIAL = re.compile(r"^(\d+)_(\d+)")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def trial_of(name):
    m = TRIAL.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def read_motion(path):
    """(frame count declared, frame time, frame lines, channel count) or a str error."""
    with open(path, newline="") as f:
        lines = f.read().splitlines(keepends=True)
    try:
        m = next(i for i, l in enumerate(lines) if l.strip() == "MOTION")
    except StopIteration:
        return "no MOTION section"
    nchan = sum(int(l.split()[1]) for l in lines[:m] if l.strip().startswith("CHANNELS"))
    if m + 2 >= len(lines) or not lines[m + 1].startswith("Frames:") \
            or not lines[m + 2].startswith("Frame Time:"):
        return "no 'Frames:' and 'Frame Time:' after MOTION"
    declared = int(lines[m + 1].split(":")[1])
    ftime = float(lines[m + 2].split(":")[1])
    frames = [l for l in lines[m + 3:] if l.strip()]
    return declared, ftime, frames, nchan, lines[:m + 1], lines[m + 2]


def main(argv):
    args = argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(here, "..", "tests", "data", "cmu")
    sources, not_in, listing, all_tuning, min_files = None, [], False, False, 40
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        if a == "--min-files":
            if i + 1 >= len(args) or not args[i + 1].isdigit():
                sys.stderr.write("--min-files needs a count\n")
                return 2
            min_files = int(args[i + 1])
            i += 2
            continue
        if a in ("--sources", "--not-in"):
            if i + 1 >= len(args):
                sys.stderr.write("%s needs a folder\n" % a)
                return 2
            if a == "--sources":
                sources = args[i + 1]
            else:
                not_in.append(args[i + 1])
            i += 2
            continue
        if a == "--list":
            listing = True
        elif a == "--all-tuning":
            all_tuning = True
        elif a.startswith("-"):
            sys.stderr.write("unknown option %s\n" % a)
            return 2
        else:
            folder = a
        i += 1

    errors = []
    err = errors.append

    # split.tsv
    split = {}
    with open(os.path.join(folder, "split.tsv")) as f:
        rows = f.read().splitlines()
    if not rows or rows[0] != "file\thalf\tkind\tscale\tfps":
        err("split.tsv: header is not 'file<TAB>half<TAB>kind<TAB>scale<TAB>fps'")
    for n, row in enumerate(rows[1:], 2):
        c = row.split("\t")
        if len(c) != 5:
            err("split.tsv line %d: %d columns, not 5" % (n, len(c)))
            continue
        name, half, kind, scale, fps = c
        if half not in HALVES or kind not in KINDS or scale != SCALE or fps != str(FPS) \
                or trial_of(name) is None:
            err("split.tsv line %d: bad row %r" % (n, row))
        if name in split:
            err("split.tsv: %s twice" % name)
        split[name] = (half, kind)

    # README tables
    table, sources_of = {}, {}
    with open(os.path.join(folder, "README.md")) as f:
        for line in f.read().splitlines():
            m = ROW1.match(line)
            if m:
                table[m.group(1)] = m
            m = ROW2.match(line)
            if m:
                sources_of[m.group(1)] = m

    on_disk = sorted(x for x in os.listdir(folder) if x.endswith(".bvh"))
    for what, names in (("split.tsv", split), ("README's file table", table),
                        ("README's source table", sources_of)):
        if sorted(names) != on_disk:
            err("%s lists %s, the folder holds %s" % (what, sorted(set(names) ^ set(on_disk)) or
                                                      "a different set", "those" if names else on_disk))

    # The rule: alternate within each kind in (subject, trial) order (or,
    # --all-tuning, every file tuning).
    for kind in KINDS:
        names = sorted((x for x in split if split[x][1] == kind), key=trial_of)
        for k, name in enumerate(names):
            want = "tuning" if all_tuning else HALVES[k % 2]
            if split[name][0] != want:
                err("%s: split.tsv says %s, the rule gives %s (%s no. %d)"
                    % (name, split[name][0], want, kind, k + 1))

    for name in on_disk:
        path = os.path.join(folder, name)
        row, src = table.get(name), sources_of.get(name)
        if row is None or src is None:
            continue
        if split.get(name) != (row.group(6), row.group(5)):
            err("%s: README says %s/%s, split.tsv %s" % (name, row.group(6), row.group(5), split.get(name)))
        if (int(row.group(2)), int(row.group(3))) != trial_of(name):
            err("%s: README's subject/trial is not the file name's" % name)
        if sha256(path) != src.group(4):
            err("%s: sha256 %s, README %s" % (name, sha256(path), src.group(4)))
        mo = read_motion(path)
        if isinstance(mo, str):
            err("%s: %s" % (name, mo))
            continue
        declared, ftime, frames, nchan, _, _ = mo
        want = int(row.group(7))
        if declared != want or len(frames) != want:
            err("%s: Frames: %d and %d frame lines, README %d" % (name, declared, len(frames), want))
        if int(row.group(8)) != FPS or abs(ftime * FPS - 1) > 1e-4:
            err("%s: Frame Time %g, README %s fps" % (name, ftime, row.group(8)))
        if abs(float(row.group(9)) - want / FPS) > 0.006:
            err("%s: README says %s s, frames / fps = %.3f" % (name, row.group(9), want / FPS))
        first, last = int(row.group(10)), int(row.group(11))
        if last - first + 1 != want or last > int(row.group(12)):
            err("%s: README's range %d..%d does not hold %d frames" % (name, first, last, want))
        for k, l in enumerate(frames):
            v = l.split()
            if len(v) != nchan or not all(math.isfinite(float(x)) for x in v):
                err("%s: frame %d has %d values (hierarchy: %d channels) or a non-finite one"
                    % (name, k, len(v), nchan))
                break

        if sources:
            spath = os.path.join(sources, os.path.basename(src.group(2)))
            if not os.path.isfile(spath):
                err("%s: no source %s" % (name, spath))
                continue
            if sha256(spath) != src.group(3):
                err("%s: source %s has sha256 %s, README %s" % (name, spath, sha256(spath), src.group(3)))
                continue
            smo = read_motion(spath)
            if isinstance(smo, str):
                err("%s: source: %s" % (name, smo))
                continue
            _, _, sframes, _, head, ftline = smo
            nl = "\r\n" if head[-1].endswith("\r\n") else "\n"
            rebuilt = "".join(head) + "Frames: %d%s" % (last - first + 1, nl) + ftline \
                + "".join(sframes[first:last + 1])
            with open(path, newline="") as f:
                if f.read() != rebuilt:
                    err("%s: frames %d..%d of the source are not our file" % (name, first, last))

    for d in not_in:
        theirs = {trial_of(x) for x in os.listdir(d) if x.endswith(".bvh") and trial_of(x)}
        for name in on_disk:
            if trial_of(name) in theirs:
                err("%s: CMU trial %02d_%02d is also in %s" % ((name,) + trial_of(name) + (d,)))

    walks_runs = sum(1 for x in split if split[x][1] in ("walk", "run"))
    if len(on_disk) < min_files or walks_runs < min(10, min_files):
        err("%d files, %d walks or runs (want at least %d and %d)" % (len(on_disk), walks_runs, min_files,
                                                                      min(10, min_files)))

    if errors:
        for e in errors:
            sys.stderr.write("FAIL: %s\n" % e)
        return 1
    counts = {(h, k): 0 for h in HALVES for k in KINDS}
    for h, k in split.values():
        counts[(h, k)] += 1
    sys.stderr.write("cmu data: %d files checked%s%s; %s\n" % (
        len(on_disk), ", sources rebuilt" if sources else "",
        ", no trial also in %s" % " or ".join(not_in) if not_in else "",
        ", ".join("%s %s %d" % (h, k, counts[(h, k)]) for h in HALVES for k in KINDS)))
    if listing:
        for name in on_disk:
            print("%s %s %d" % (name, table[name].group(7), FPS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
