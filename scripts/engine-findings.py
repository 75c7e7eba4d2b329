#!/usr/bin/env python3
"""Writes docs/engine-findings.md from the campaigns it cites.

For every shipped engine family (a description with an `engine` block) and
every variant of it that describes an engine's behaviour (each variant but
`fixed`), this runs, on the host backend:

  - `check --writers` of the family's curated scenarios
    (scenarios/engines/FAMILY/): which file pins which finding, on which
    output, as a hazard (the mapping sends a token into block 0) or a write
    (block 0's bytes changed);
  - `fuzz --variant V --writers --keep-going` from nothing: what a campaign
    finds of that behaviour without any curated scenario, one line per
    distinct signature; for a family with no such variant (its description
    is the engine's), the same campaign of the description itself.

and prints the page (Markdown) on stdout, or writes it with --out. Nothing
on the page is typed by hand: the families, variants, fixes, commands and
findings all come from the binary's own output (`list --json`, the JSON
reports). Needs only Debian's python3.

Usage: scripts/engine-findings.py [--slotguard build/slotguard] [--runs 2000]
                                  [--out docs/engine-findings.md] [--scratch DIR]
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, what):
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    # check and fuzz exit 1 when they find something: that is the point here.
    if proc.returncode not in (0, 1):
        sys.exit(f"engine-findings: {what} exited {proc.returncode}: {' '.join(map(shlex.quote, cmd))}\n"
                 f"{proc.stderr.strip()[:2000]}")
    return proc


def kind_of(invariants):
    """Hazard, write or both, from the invariants one finding fired."""
    hazard = "null_block" in invariants or "negative_lands" in invariants
    write = "null_bytes" in invariants
    if hazard and write:
        return "hazard and write"
    if write:
        return "write"
    if hazard:
        return "hazard, no write"
    return "other"


def curated(sg, family, scratch):
    """Per curated scenario of the family: its forced variant and findings per group."""
    folder = os.path.join("scenarios", "engines", family)
    if not os.path.isdir(os.path.join(ROOT, folder)):
        return [], None
    report = os.path.join(scratch, f"check-{family}.json")
    cmd = [sg, "check", "--backend", "host", "--writers", "--quiet", "--json", report, folder + "/"]
    run(cmd, f"check of {folder}")
    with open(report) as f:
        rows = json.load(f)["scenarios"]
    shown = ["slotguard", "check", "--backend", "host", "--writers", folder + "/"]
    return rows, " ".join(shown)


def campaign(sg, family, variant, runs, scratch):
    report = os.path.join(scratch, f"fuzz-{family}-{variant}.json")
    out = os.path.join(scratch, f"fuzz-{family}-{variant}")
    # Pools up to 4 MiB: the writers then judge every small batch (every
    # minimized reproducer is one) at thousands of scenarios a second.
    args = ["fuzz", "--backend", "host", "--family", family, "--variant", variant, "--writers",
            "--max-cache-mib", "4", "--keep-going", "--runs", str(runs), "--seed", "1"]
    run([sg] + args + ["--json", report, "--out", out], f"fuzz of {family} {variant}")
    with open(report) as f:
        return json.load(f), "slotguard " + " ".join(args)


def pinned_rows(rows, variant):
    """The table of the curated scenarios whose groups of this variant have findings (none: no table)."""
    pinned = []
    for row in rows:
        for g in row.get("groups", []):
            if g.get("variant") != variant or not g.get("counts"):
                continue
            outputs = sorted({f["output"] for f in g.get("findings", [])
                              if f["invariant"] in ("null_block", "null_bytes", "negative_lands")})
            pinned.append((os.path.relpath(row["file"], ROOT) if os.path.isabs(row["file"]) else row["file"],
                           ", ".join(outputs) or g["name"], kind_of(g["counts"]),
                           ", ".join(sorted(g["counts"]))))
    if not pinned:
        return []
    return (["| curated scenario | output | block 0 | invariants |", "|---|---|---|---|"]
            + [f"| `{p[0]}` | {p[1]} | {p[2]} | {p[3]} |" for p in pinned] + [""])


def finding_rows(found):
    """The table of a campaign's distinct findings, one row each."""
    lines = ["| cause | block 0 | minimized to | what the reproducer shows |", "|---|---|---|---|"]
    for f in found:
        causes = "; ".join(f.get("causes", []))[:300].replace("|", "\\|")
        lines += [f"| {f['cause']} ({f['blame']}) | {kind_of(f['invariants'])} | {f['shape']} | {causes} |"]
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slotguard", default=os.path.join(ROOT, "build", "slotguard"))
    ap.add_argument("--runs", type=int, default=2000, help="scenarios per fuzz campaign (default 2000)")
    ap.add_argument("--out", help="write the page here (default: stdout)")
    ap.add_argument("--scratch", help="folder for the reports (default: a temporary one)")
    args = ap.parse_args()
    sg = os.path.abspath(args.slotguard)
    scratch = args.scratch or tempfile.mkdtemp(prefix="engine-findings-")
    os.makedirs(scratch, exist_ok=True)

    listing = json.loads(run([sg, "list", "--json"], "list --json").stdout)
    version = listing.get("version", "")
    families = [f for f in listing["families"] if f.get("engine") and f["engine"].get("repo")]

    lines = [
        "# What slotguard shows of the engines",
        "",
        "<!-- Generated by scripts/engine-findings.py; do not edit by hand. -->",
        "",
        "For each engine family slotguard ships (a description of an engine's",
        "kernel, [families.md](families.md)) and each variant that describes the",
        "engine's own behaviour at a pinned commit: what the curated scenarios of",
        "`scenarios/engines/` pin, and what a fuzz campaign of that variant finds",
        "from nothing. A **hazard** is a token the mapping sends into block 0 (or",
        "a negative slot landing where it must not, `negative_lands`); a **write**",
        "is a byte of block 0 that changed after the engine's writers ran",
        "(`null_bytes`). Both campaigns run on the host backend with the",
        "writers on; the commands are under each family.",
        "",
        f"Generated with slotguard {version}, `scripts/engine-findings.py --runs {args.runs}`.",
        "",
    ]
    for fam in families:
        name = fam["name"]
        eng = fam["engine"]
        variants = [v for v in fam["variants"] if v["name"] != "fixed"]
        lines += [f"## {name}", "",
                  f"{eng['repo']} `{eng.get('path', '')}` at `{eng.get('commit', '')[:12]}`: {eng.get('function', '')}.", ""]
        rows, check_cmd = curated(sg, name, scratch)
        if not variants:
            # The description is the engine's: what a campaign of it finds is the engine's own.
            report, fuzz_cmd = campaign(sg, name, "fixed", args.runs, scratch)
            found = report.get("findings", [])
            if not found:
                lines += ["No variant: the description is what the engine does at this commit, and the fuzz campaign of",
                          "the description finds nothing the engine would do wrong.", ""]
            else:
                lines += ["No variant: the description is what the engine does at this commit, so what a campaign of",
                          f"the description finds is the engine's own (`{fuzz_cmd}`): {report.get('scenarios', 0)} "
                          f"scenarios, {len(found)} distinct finding{'s' if len(found) != 1 else ''}.", ""]
                lines += pinned_rows(rows, "fixed")
                lines += finding_rows(found)
        for v in variants:
            report, fuzz_cmd = campaign(sg, name, v["name"], args.runs, scratch)
            lines += [f"### {name} / {v['name']}", "", v["meaning"] + ".", ""]
            lines += [f"Upstream fix: {v['fix']}." if v.get("fix") else "Upstream fix: none known.", ""]
            lines += pinned_rows(rows, v["name"])
            found = report.get("findings", [])
            lines += [f"Fuzz from nothing (`{fuzz_cmd}`): {report.get('scenarios', 0)} scenarios, "
                      f"{len(found)} distinct finding{'s' if len(found) != 1 else ''}.", ""]
            if found:
                lines += finding_rows(found)
        if check_cmd:
            lines += [f"Curated scenarios: `{check_cmd}`.", ""]
    page = "\n".join(lines).rstrip() + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(page)
    else:
        sys.stdout.write(page)


if __name__ == "__main__":
    main()
