#!/usr/bin/env python3
"""What the speculation could reach with the odds it had: a bound from a trace.

    bench/chain_bound.py TRACE [WIDTH...] [--latency SECONDS]

TRACE is a `REDUCE_TRACE=FILE reduce -jN ...` timeline (see src/trace.rs). From its `V` events
(each decision of the serial chain: verdict and the odds the planner gave it) it takes the
decisions whose test really ran (longer than half the median run: cache hits and candidates
the prefilter pruned are free) and replays them with an ideal planner: no cost of its own, every test exactly LATENCY
seconds (default: the trace's median full test), WIDTH tests at once on the most probable nodes
of the tree of futures (best first by the product of the predicted outcomes, as `chain.rs`
plans), a running test kept until it ends or leaves the tree. Off the true path a node gets the
odds of the true node at the same depth. It prints the wall time that planner needs, the serial
time and the speedup: with these odds no planner of this kind does better, so a target above it
needs sharper odds, not a faster planner.
"""

import heapq
import statistics
import sys


def load(path):
    started, ended, seq = {}, {}, []
    with open(path) as f:
        lines = [line.split() for line in f]
    for f in lines:
        if len(f) > 2 and f[1] == "S":
            started[f[2]] = float(f[0])
        elif len(f) > 2 and f[1] == "D":
            ended[f[2]] = float(f[0])
    runs = {t: ended[t] - s for t, s in started.items() if t in ended and ended[t] - s > 0.005}
    median = statistics.median(runs.values())
    # a test that ran, not a candidate the worker's parse pruned
    full = {t: d for t, d in runs.items() if d > median / 2}
    for f in lines:
        if len(f) > 4 and f[1] == "V" and f[2] in full:
            seq.append((int(f[3]), float(f[4])))
    return seq, statistics.median(full.values())


def simulate(seq, width, latency):
    """Wall time and tests started of the ideal planner over the decisions `seq`."""
    n = len(seq)
    truth = [y for y, _ in seq]
    now, m, tests = 0.0, 0, 0
    running, known = {}, {}  # path of outcomes from decision m -> end time / verdict

    def rebase(table):
        # keep the entries below the true outcome of decision m, re-rooted one step down
        return {p[1:]: v for p, v in table.items() if p and p[0] == truth[m]}

    while m < n:
        frontier, budget = [(-1.0, ())], 4 * width + 16
        while frontier and len(running) < width and budget > 0:
            budget -= 1
            neg, path = heapq.heappop(frontier)
            depth = m + len(path)
            if depth >= n:
                continue
            if path not in running and path not in known:
                running[path] = now + latency
                tests += 1
            p = seq[depth][1]
            if path in known:
                heapq.heappush(frontier, (neg, path + (known[path],)))
            else:
                heapq.heappush(frontier, (neg * p, path + (1,)))
                heapq.heappush(frontier, (neg * (1 - p), path + (0,)))
        path = min(running, key=running.get)
        now = max(now, running.pop(path))
        depth = m + len(path)
        on_path = all(o == truth[m + i] for i, o in enumerate(path))
        known[path] = truth[depth] if on_path else int(seq[depth][1] > 0.5)
        while () in known and m < n:
            running, known = rebase(running), rebase(known)
            m += 1
    return now, tests


def main():
    args = sys.argv[1:]
    latency = None
    if "--latency" in args:
        i = args.index("--latency")
        latency = float(args[i + 1])
        del args[i : i + 2]
    if not args:
        sys.exit(__doc__)
    seq, median = load(args[0])
    latency = latency or median
    widths = [int(w) for w in args[1:]] or [2, 8, 32]
    serial = len(seq) * latency
    print(f"{len(seq)} decisions with a test, {latency:.3f} s each: serial {serial:.1f} s")
    for w in widths:
        wall, tests = simulate(seq, w, latency)
        print(f"-j{w}: ideal planner {wall:.1f} s, {serial / wall:.2f}x, {tests} tests started")


if __name__ == "__main__":
    main()
