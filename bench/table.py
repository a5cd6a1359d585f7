#!/usr/bin/env python3
"""Turns bench/results.tsv into the Markdown table of bench/RESULTS.md."""
import csv
import json
import os
import sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
# a rerun of one tool on one case replaces its earlier row
latest = {}
for r in rows:
    latest[(r["case"], r["tool"])] = r
order = ["reduce", "reduce-j1", "reduce-deletion", "reduce-ddmin", "reduce-rename", "reduce-compact", "creduce", "cvise", "treereduce-c", "treereduce-rust"]
rows = sorted(latest.values(), key=lambda r: (r["case"], order.index(r["tool"]) if r["tool"] in order else 99))
print("# Benchmark results\n")
print("Produced by `bench/bench.sh`, one run at a time on a 2-core machine: `reduce` is "
      "`--algo perses` with its default `-j` (the number of cores) and with `-j1`, and "
      "`reduce-deletion` is `--no-rewrites` (deletion only, as before the rewrite passes); C-Reduce "
      "and C-Vise run with `--n 2`. Wall time in seconds (noisy on shared machines: compare "
      "within one table); tests = calls of the test script; tokens = C/C++ tokens of the final "
      "file (`bench/ctokens.py`), for other languages the tokens of `reduce`'s own tree "
      "(its grammar, or the bracket tree for LLVM IR); `reduce-ddmin` = `--algo ddmin` (lines); "
      "C-Reduce and C-Vise get `--not-c` on inputs that are not C or C++; passes = the final file re-checked with the test; exit 124 = "
      "stopped at the time cap.\n")
print("| case | tool | wall s | tests | bytes | tokens | peak RSS MB | passes | exit |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")


def rss(r):
    # (rows appended under an older header carry the column as an extra field)
    kb = r.get("peak_rss_kb") or (r.get(None) or ["NA"])[0]
    return "-" if kb == "NA" else str(round(int(kb) / 1024))


for r in rows:
    print(f"| {r['case']} | {r['tool']} | {r['wall_s']} | {r['tests']} | "
          f"{r['orig_bytes']} -> {r['final_bytes']} | {r['orig_tokens']} -> {r['final_tokens']} | "
          f"{rss(r)} | {r['passes']} | {r['exit']} |")
by_case = {}
for r in rows:
    by_case.setdefault(r["case"], {})[r["tool"]] = r
print("\n## -j determinism\n")
for case, tools in by_case.items():
    if "reduce" in tools and "reduce-j1" in tools:
        same = tools["reduce"]["sha"] == tools["reduce-j1"]["sha"]
        print(f"- {case}: default -j and -j1 outputs are "
              f"{'byte-identical' if same else 'DIFFERENT'} (sha {tools['reduce']['sha']})")

renamed = [(case, tools) for case, tools in by_case.items() if "reduce-rename" in tools]
if renamed:
    print("\n## Bytes with short names\n")
    print("C-Reduce renames identifiers; `reduce` does only with `--rename` (`reduce-rename`), "
          "C-Vise not by default. Final bytes:\n")
    print("`reduce-compact` is `--rename --compact` (the fewest-bytes layout as well): the smallest "
          "file `reduce` gives, the one to hold against C-Reduce's bytes.\n")
    print("| case | reduce | reduce --rename | reduce --rename --compact | C-Reduce | C-Vise |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for case, tools in renamed:
        cell = lambda t: tools[t]["final_bytes"] + (" (capped)" if tools[t]["exit"] == "124" else "") if t in tools else "-"
        print(f"| {case} | {cell('reduce')} | {cell('reduce-rename')} | {cell('reduce-compact')} | {cell('creduce')} | {cell('cvise')} |")

stats_dir = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "stats")


def stats(tool, case):
    try:
        return json.load(open(os.path.join(stats_dir, f"{tool}.{case}.json")))
    except (OSError, ValueError):
        return None


print("\n## Share of test runs the test rejected\n")
print("From `--stats-json` (runs of the script, the check of the original included; cache hits "
      "and prefiltered candidates are not runs). `reduce-deletion` is the same binary with "
      "`--no-rewrites`.\n")
print("| case | reduce: runs / rejected | reduce-deletion: runs / rejected |")
print("| --- | ---: | ---: |")
for case in by_case:
    cells = []
    for tool in ["reduce", "reduce-deletion"]:
        s_ = stats(tool, case)
        if s_ and s_.get("tests"):
            share = 1 - s_["interesting"] / s_["tests"]
            cells.append(f"{s_['tests']} / {share:.0%}")
        else:
            cells.append("-")
    print(f"| {case} | {cells[0]} | {cells[1]} |")

print("\n## Yield of each pass (`reduce`, default -j)\n")
print("Test runs, runs that were interesting, tokens and bytes removed, seconds; tokens are "
      "counted only while the file is under 1 MB (0 before).\n")
print("| case | pass | runs | tests | successes | -tokens | -bytes | s | tokens per test |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in by_case:
    s_ = stats("reduce", case)
    for p in (s_ or {}).get("passes", []):
        per = p["tokens_removed"] / p["tests"] if p["tests"] else 0
        print(f"| {case} | {p['name']} | {p['runs']} | {p['tests']} | {p['successes']} | "
              f"{p['tokens_removed']} | {p['bytes_removed']} | {p['seconds']:.1f} | {per:.1f} |")

notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")
if os.path.exists(notes):
    print()
    print(open(notes).read().rstrip())

# the -j scaling section (bench/scaling.sh, bench/jobs2.sh, examples/chain_sim) is kept by hand
scaling = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scaling.md")
if os.path.exists(scaling):
    print()
    print(open(scaling).read().rstrip("\n"))

# issue 40's table (bench/same_failure.sh writes it)
same_failure = os.path.join(os.path.dirname(os.path.abspath(__file__)), "same_failure.md")
if os.path.exists(same_failure):
    print()
    print(open(same_failure).read().rstrip("\n"))
