#!/usr/bin/env python3
"""Doxygen input filter for the public headers (docs/Doxyfile, INPUT_FILTER).

The headers document their declarations with plain C comments; this filter
turns them into doxygen comments on the way in, the headers themselves stay
as they are. Lines are kept one for one (doxygen's line numbers stay right).

  - the file's opening comment ("skelanim — ...")  ->  /** @file NAME ... */
  - a comment on a line of its own, directly above a declaration, a member,
    an enumerator or a #define                      ->  /** ... */
  - a comment after a declaration on the same line  ->  /**< ... */
  - a comment followed by a blank line, another comment, a preprocessor
    line other than #define, or a closing brace (section headings, notes
    about what follows)                             ->  left a plain comment

Inside a converted comment, the characters doxygen would read as commands or
markup (backslash, @, <, >, &, #, $, %, and "..", which can end a list) are
escaped, so the text reads as written. A comment inside a parameter list
stays plain (the declaration's comment documents the function).

Usage: doc_comments.py HEADER  (writes the filtered text to stdout)
"""
import os
import re
import sys

ESCAPES = {"\\": "\\\\", "@": "\\@", "<": "\\<", ">": "\\>", "&": "\\&", "#": "\\#", "$": "\\$", "%": "\\%"}


def escape(body):
    # ".." ends a doxygen list where a line ends ("0 .." above "n - 1"): \. is a plain dot
    return "".join(ESCAPES.get(ch, ch) for ch in body).replace("..", ".\\.")


def comments(text):
    """(start, end) of every /* */ comment, outside string and char literals and // comments."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            yield i, j
            i = j
        else:
            i += 1


def kind(text, start, end, first):
    """'file', 'before', 'after' or None (left plain) for the comment text[start:end]."""
    body = text[start + 2:end - 2]
    if body.startswith(("*", "!")):
        return None  # already a doxygen comment
    if first and body.lstrip().startswith("skelanim"):
        return "file"
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start].strip()
    if prefix:
        if prefix.startswith("#") or prefix.endswith("{"):
            return None
        stmt = text[text.rfind(";", 0, start) + 1:start]
        if stmt.count("(") > stmt.count(")"):
            return None  # a note on one parameter: the declaration's own comment documents it
        return "after"
    eol = text.find("\n", end)
    eol = len(text) if eol < 0 else eol
    if text[end:eol].strip():
        return "before"  # /* note */ int x;
    nxt_end = text.find("\n", eol + 1)
    nxt = text[eol + 1:len(text) if nxt_end < 0 else nxt_end].strip()
    if not nxt or nxt.startswith(("/*", "//", "}", 'extern "C"')):
        return None
    if nxt.startswith("#") and not re.match(r"#\s*define\b", nxt):
        return None
    return "before"


def convert(text, name):
    out, last, first = [], 0, True
    for start, end in comments(text):
        k = kind(text, start, end, first)
        first = False
        out.append(text[last:start])
        body = text[start + 2:end - 2]
        if k is None:
            out.append(text[start:end])
        elif k == "file":
            out.append("/** @file " + name + " " + escape(body.lstrip()) + "*/")
        elif k == "before":
            out.append("/**" + escape(body) + "*/")
        else:
            out.append("/**<" + escape(body) + "*/")
        last = end
    out.append(text[last:])
    return "".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: doc_comments.py HEADER")
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    norm = path.replace(os.sep, "/")
    name = norm.split("include/", 1)[1] if "include/" in norm else os.path.basename(path)
    sys.stdout.write(convert(text, name))


if __name__ == "__main__":
    main()
