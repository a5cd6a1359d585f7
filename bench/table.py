#!/usr/bin/env python3
"""Turns bench/results.tsv into the Markdown table of bench/RESULTS.md."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
# a rerun of one tool on one case replaces its earlier row
latest = {}
for r in rows:
    latest[(r["case"], r["tool"])] = r
order = ["reduce", "reduce-j1", "reduce-ddmin", "creduce", "cvise", "treereduce-c", "treereduce-rust"]
rows = sorted(latest.values(), key=lambda r: (r["case"], order.index(r["tool"]) if r["tool"] in order else 99))
print("# Benchmark results\n")
print("Produced by `bench/bench.sh`, one run at a time on a 2-core machine: `reduce` is "
      "`--algo perses` with its default `-j` (the number of cores) and with `-j1`; C-Reduce "
      "and C-Vise run with `--n 2`. Wall time in seconds (noisy on shared machines: compare "
      "within one table); tests = calls of the test script; tokens = C/C++ tokens of the final "
      "file (`bench/ctokens.py`), for other languages the tokens of `reduce`'s own tree "
      "(its grammar, or the bracket tree for LLVM IR); `reduce-ddmin` = `--algo ddmin` (lines); "
      "C-Reduce and C-Vise get `--not-c` on inputs that are not C or C++; passes = the final file re-checked with the test; exit 124 = "
      "stopped at the time cap.\n")
print("| case | tool | wall s | tests | bytes | tokens | passes | exit |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
for r in rows:
    print(f"| {r['case']} | {r['tool']} | {r['wall_s']} | {r['tests']} | "
          f"{r['orig_bytes']} -> {r['final_bytes']} | {r['orig_tokens']} -> {r['final_tokens']} | "
          f"{r['passes']} | {r['exit']} |")
by_case = {}
for r in rows:
    by_case.setdefault(r["case"], {})[r["tool"]] = r
print("\n## -j determinism\n")
for case, tools in by_case.items():
    if "reduce" in tools and "reduce-j1" in tools:
        same = tools["reduce"]["sha"] == tools["reduce-j1"]["sha"]
        print(f"- {case}: default -j and -j1 outputs are "
              f"{'byte-identical' if same else 'DIFFERENT'} (sha {tools['reduce']['sha']})")
