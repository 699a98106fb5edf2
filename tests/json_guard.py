# The tool's JSON must hold no non-finite number (issue #14): no NaN or
# Infinity token, and no null where a number belongs (inside an array or
# under a key other than the few whose documented value "none" is null).
# Used by tests/skelanim_guard.sh on every command the shell tests run.
import json, re, sys

text = open(sys.argv[1], errors="replace").read()
label = sys.argv[2]
if re.search(r'(?<![A-Za-z_])(nan|NaN|-?inf|-?Infinity)(?![A-Za-z_])', text) and \
        any(l.lstrip().startswith(("{", "[")) and re.search(r'(?<![A-Za-z_"])(nan|NaN|-?inf|-?Infinity)(?![A-Za-z_"])', l)
            for l in text.splitlines()):
    sys.exit("%s: non-finite token in the JSON output" % label)
allowed_null = {"mask", "clip", "exit_time"}


def walk(v, path):
    if v is None:
        key = path.rsplit("/", 1)[-1]
        if key.isdigit() or key not in allowed_null:
            sys.exit("%s: null at %s in the JSON output" % (label, path or "/"))
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(x, path + "/" + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s/%d" % (path, i))


try:  # one JSON document
    walk(json.loads(text), "")
except ValueError:  # or JSON lines among text lines
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("{", "[")):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            walk(doc, "")
