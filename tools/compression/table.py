#!/usr/bin/env python3
"""Markdown tables for docs/compression.md from `skelanim compress --json` output.

  tools/compression/table.py A.jsonl [B.jsonl]    (e.g. 120 fps, then 24 fps)

Per clip: frames, raw bytes (10 float32 per joint with a track per frame),
compressed bytes, ratio, max and p99 error; then the totals (ratio of the
summed sizes, the largest max error, the largest per-clip p99, compression
throughput = raw bytes / summed seconds).
"""
import json
import sys

runs = [[json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:]]
if not runs:
    sys.exit(__doc__)
clips = {}
for i, rows in enumerate(runs):
    for r in rows:
        clips.setdefault(r["skc"] + "/" + r["clip"], [None] * len(runs))[i] = r
head = "| clip |" + "".join(" frames | raw B | compressed B | ratio | max cm | p99 cm |" for _ in runs)
print(head)
print("|---|" + "---:|" * (6 * len(runs)))
for name in sorted(clips):
    line = "| " + name.split("/")[0] + " |"
    for r in clips[name]:
        if r is None or not r["compressed"]:
            line += " | | | kept as keys | | |"
            continue
        line += " %d | %s | %s | %.2f | %.4f | %.4f |" % (r["frames"], format(int(r["raw_bytes"]), ","),
                                                          format(int(r["compressed_bytes"]), ","), r["ratio"],
                                                          r["max_error_cm"], r["p99_error_cm"])
    print(line)
line = "| **total** |"
for rows in runs:
    ok = [r for r in rows if r["compressed"]]
    raw = sum(r["raw_bytes"] for r in ok)
    comp = sum(r["compressed_bytes"] for r in ok)
    secs = sum(r["seconds"] for r in ok)
    line += " %d | **%s** | **%s** | **%.2f** | %.4f | ≤ %.4f |" % (
        sum(r["frames"] for r in ok), format(int(raw), ","), format(int(comp), ","), raw / comp,
        max(r["max_error_cm"] for r in ok), max(r["p99_error_cm"] for r in ok))
print(line)
for i, rows in enumerate(runs):
    ok = [r for r in rows if r["compressed"]]
    raw = sum(r["raw_bytes"] for r in ok)
    secs = sum(r["seconds"] for r in ok)
    print("\n%s: %d clips, compression %.1f MB/s of raw data (%.2f s)" % (sys.argv[1 + i], len(ok), raw / secs / 1e6, secs))
