#!/usr/bin/env python3
"""Every shipped engine description cites the engine for every knob it sets.

A description with an `engine` block (families/*.json) is a model of that
engine's code; each knob it sets (a top-level knob, an output's own rule, a
per-request knob) must have an `engine.cite` entry whose key is the knob
(or starts with "KNOB/", e.g. "outputs/0/writer") and whose text names a
path and a line ("path:line what the code does"). Exit 0 when every one
does, 1 with one line per missing or lineless citation.
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Keys that are the description's own metadata, not knobs of the model.
META = {"slotguard_family", "name", "meaning", "engine", "kind", "params", "constraints", "variants"}
CITATION = re.compile(r"[\w./-]+\.\w+(?:@[0-9a-f]+)?:\d+")


def main():
    problems = []
    files = sorted(glob.glob(os.path.join(ROOT, "families", "*.json")))
    engines = 0
    for path in files:
        with open(path) as f:
            d = json.load(f)
        engine = d.get("engine") or {}
        if not engine.get("repo"):
            continue
        engines += 1
        name = os.path.relpath(path, ROOT)
        cite = engine.get("cite") or {}
        for knob, text in cite.items():
            if not CITATION.search(text):
                problems.append(f"{name}:/engine/cite/{knob}: no path:line in {text[:80]!r}")
        for knob in d:
            if knob in META:
                continue
            if not any(k == knob or k.startswith(knob + "/") for k in cite):
                problems.append(f"{name}:/{knob}: the knob cites no engine line; expected engine.cite[\"{knob}\"]")
    for p in problems:
        print(p)
    print(f"engine_cites: {engines} engine descriptions, {len(problems)} problems")
    return 1 if problems or engines == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
