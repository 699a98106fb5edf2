#!/usr/bin/env python3
"""Reads doxygen's XML output (docs/Doxyfile, GENERATE_XML) and checks that
every name given on stdin (one a line: the functions the shared libraries
export) has a function entry with a description that is not empty (brief or
detailed text, parameter lists and the like not counted).

Usage: apiref.py XML_DIR < names
Prints the names without one and exits 1 if any; else prints the count."""
import glob
import os
import sys
import xml.etree.ElementTree as ET


def text_of(node):
    if node is None:
        return ""
    parts = []

    def walk(n):
        if n.tag in ("parameterlist", "simplesect") and n is not node:
            return
        if n.text:
            parts.append(n.text)
        for c in n:
            walk(c)
            if c.tail:
                parts.append(c.tail)

    walk(node)
    return " ".join("".join(parts).split())


def main():
    xml_dir = sys.argv[1]
    described, seen = {}, set()
    for path in glob.glob(os.path.join(xml_dir, "*.xml")):
        root = ET.parse(path).getroot()
        for m in root.iter("memberdef"):
            if m.get("kind") != "function":
                continue
            name = m.findtext("name")
            seen.add(name)
            d = text_of(m.find("briefdescription")) + " " + text_of(m.find("detaileddescription"))
            if d.strip():
                described[name] = d.strip()
    names = sorted({l.strip() for l in sys.stdin if l.strip()})
    absent = [n for n in names if n not in seen]
    empty = [n for n in names if n in seen and n not in described]
    for n in absent:
        print(f"not in the reference: {n}")
    for n in empty:
        print(f"no description: {n}")
    print(f"apiref: {len(names)} exported functions, {len(names) - len(absent) - len(empty)} described, "
          f"{len(absent)} absent, {len(empty)} without a description")
    sys.exit(1 if absent or empty or not names else 0)


if __name__ == "__main__":
    main()
