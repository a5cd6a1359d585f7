#!/usr/bin/env python3
"""Turns bench/results.tsv into the Markdown table of bench/RESULTS.md."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("# Benchmark results\n")
print("Produced by `bench/bench.sh` (one run at a time, this machine: "
      "see the note below). Wall time in seconds; tests = calls of the test script; "
      "tokens = C tokens of the final file; passes = the final file re-checked with the test.\n")
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
