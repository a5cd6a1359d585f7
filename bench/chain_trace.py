#!/usr/bin/env python3
"""Where the wall time of a run goes, from `REDUCE_TRACE=FILE reduce ...` (see src/trace.rs).

    bench/chain_trace.py TRACE            # one run: per kind of pass
    bench/chain_trace.py TRACE_J1 TRACE_JN  # the same passes at -j1 and -jN, with speedups

Per kind of pass (the progress phase without its numbers): the serial chain's decisions, how
many of them ran a test, the wall time between the previous decision and each of its decisions,
and the decisions whose test started only after the previous decision: "cold" at the first
decision of a pass (nothing had predicted the pass), "missed" inside a pass (the planner bet on
other branches). Those are the decisions a wider run cannot speed up.
"""

import collections
import re
import statistics
import sys


def load(path):
    started, ended, cancelled, decisions = {}, {}, set(), []
    phase = "?"
    with open(path) as f:
        for line in f:
            parts = line.split(maxsplit=2)
            if len(parts) != 3:
                continue
            t, kind, what = float(parts[0]), parts[1], parts[2].strip().strip('"')
            if kind == "S":
                started[what] = t
            elif kind == "A":
                run, ticket = what.split()
                started[ticket] = started.get(run, t)
                if run in ended:
                    ended[ticket] = ended[run]
            elif kind == "D":
                ended[what] = t
            elif kind == "X":
                cancelled.add(what)
            elif kind == "P":
                phase = what
            elif kind == "C":
                decisions.append((t, what, phase))
    return started, ended, cancelled, decisions


def group(phase):
    name = re.sub(r"#\d+.*", "", phase)
    name = re.sub(r"_sweep_chunk_\d+", "", name)
    return name.rstrip(":_") or phase


def passes(path):
    started, ended, cancelled, decisions = load(path)
    rows = collections.OrderedDict()
    prev_t, prev_phase = 0.0, None
    for t, ticket, phase in decisions:
        row = rows.setdefault(group(phase), collections.Counter())
        row["decisions"] += 1
        row["seconds"] += t - prev_t
        if ticket in started:
            row["tested"] += 1
            if started[ticket] >= prev_t - 0.005:
                kind = "cold" if phase != prev_phase else "missed"
                row[kind] += 1
                row[kind + "_s"] += t - prev_t
        prev_t, prev_phase = t, phase
    full = [ended[k] - started[k] for k in started
            if k in ended and k not in cancelled and ended[k] - started[k] > 0.05]
    summary = {
        "wall": prev_t,
        "starts": len(started),
        "cancelled": len(cancelled),
        "run_mean": statistics.mean(full) if full else 0.0,
    }
    return rows, summary


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    rows, summary = passes(argv[1])
    other = passes(argv[2]) if len(argv) == 3 else None
    head = f"{'pass':<40} {'decisions':>9} {'tested':>6} {'s':>7} {'cold':>11} {'missed':>11}"
    if other:
        head += f" {'s (2nd)':>8} {'speedup':>7}"
    print(head)
    total = collections.Counter()
    for name, row in sorted(rows.items(), key=lambda r: -r[1]["seconds"]):
        line = (f"{name[:40]:<40} {row['decisions']:>9} {row['tested']:>6} "
                f"{row['seconds']:>7.1f} {row['cold']:>4} {row['cold_s']:>5.1f}s "
                f"{row['missed']:>4} {row['missed_s']:>5.1f}s")
        total.update(row)
        if other:
            second = other[0].get(name, collections.Counter())["seconds"]
            line += f" {second:>8.1f} {row['seconds'] / max(second, 1e-3):>6.1f}x"
        print(line)
    print(f"{'total':<40} {total['decisions']:>9} {total['tested']:>6} {total['seconds']:>7.1f} "
          f"{total['cold']:>4} {total['cold_s']:>5.1f}s {total['missed']:>4} {total['missed_s']:>5.1f}s")
    for label, s in [(argv[1], summary)] + ([(argv[2], other[1])] if other else []):
        print(f"{label}: wall {s['wall']:.1f} s, {s['starts']} tests started, "
              f"{s['cancelled']} cancelled, a test that ran to its end took {s['run_mean']:.3f} s")


if __name__ == "__main__":
    main(sys.argv)
