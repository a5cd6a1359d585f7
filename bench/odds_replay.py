#!/usr/bin/env python3
"""Replays the speculation's odds model on a trace, to try a change to it without a run.

    bench/odds_replay.py [--decay D] [--prior P] [--no-hint] [--no-size] [--no-edges]
                         [--edge-rate R] [--by-twin FAILED SUCCEEDED | --one-overall] TRACE...

TRACE is a `REDUCE_TRACE=FILE reduce -jN ...` timeline (see src/trace.rs) whose `V` events
carry their context: `V ticket verdict odds names kind index removed twin w0 w1 w2 w3` (the
four edge words in hex; older traces lack them). This is a copy of `Odds` in
src/reduce/odds.rs (keep the two in step): smoothed success rates per context, decayed per
decision, the recent rate per twin as the prior of a coarse context (without the size), that as
the prior of the fine one, then corrected by the texts at the deletion's edges (online logistic
regression on the rates' log-odds). It
replays every decision in order and prints the log loss (nats) of the odds the run logged, of
this copy with the run's settings (equal to the logged one when the copy is faithful), and of
the variant the options ask for, in total and for the kinds of pass that lose the most. Lower is
sharper; `bench/chain_bound.py` turns odds into the speedup an ideal planner gets from them.
"""

import collections
import math
import re
import sys

DECAY, PRIOR, FIRST_GUESS = 0.9, 4.0, 0.6
TWIN_GUESS = (FIRST_GUESS, 0.2, 0.9)  # the first guess per twin: unknown, failed, succeeded
EDGE_RATE, SCALE_RATE, MAX_EDGES, LOW, HIGH = 0.2, 0.02, 1 << 16, 0.005, 0.995


def load(path):
    phase, rows = "", []
    with open(path) as f:
        for line in f:
            f = line.split()
            if len(f) > 2 and f[1] == "P":
                phase = re.sub(r"[#0-9,]+", "N", f[2])[:48]
            elif len(f) > 9 and f[1] == "V":
                y, p, hint, kind, index, removed, twin = f[3:10]
                words = [int(w, 16) for w in f[10:14]]
                rows.append(
                    dict(y=int(y), logged=float(p), hint=int(hint), kind=int(kind),
                         index=int(index), removed=int(removed), twin=int(twin), phase=phase,
                         words=words)
                )
    return rows


def contexts(r, hint=True, size=True):
    place, bits = min(r["index"], 2), r["removed"].bit_length()
    h = r["hint"] if hint else 0
    coarse = (r["kind"], place, r["twin"], h, 255)
    return [coarse, (r["kind"], place, r["twin"], h, bits if size else 255)]


def logit(p):
    return math.log(p / (1.0 - p))


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def replay(rows, decay=DECAY, prior=PRIOR, edges=True, edge_rate=EDGE_RATE, by_twin=TWIN_GUESS, **ctx):
    by, overall, odds = {}, [0.0, 0.0], []
    twins = {t: [0.0, 0.0] for t in range(3)}
    by_edge, scale = {}, 0.0
    for r in rows:
        p = (overall[0] + FIRST_GUESS) / (overall[1] + 1.0)
        if by_twin:
            t = twins[r["twin"]]
            p = (t[0] + by_twin[r["twin"]]) / (t[1] + 1.0)
        cs = contexts(r, **ctx)
        for c in cs:
            s, n = by.get(c, (0.0, 0.0))
            p = (s + prior * p) / (n + prior)
        p = min(max(p, LOW), HIGH)
        names = 4 + 4 * min(r["hint"], 15)
        words = [(i, w) for i, w in enumerate(r["words"]) if w] if edges else []
        keys = [k for i, w in words for k in ((i, w), (names + i, w))]
        z = (1.0 + scale) * logit(p) + sum(by_edge.get(k, 0.0) for k in keys)
        odds.append(min(max(sigmoid(z), LOW), HIGH))
        y = r["y"]
        error = y - sigmoid(z)
        if len(by_edge) >= MAX_EDGES:
            by_edge.clear()
        for k in keys:
            by_edge[k] = by_edge.get(k, 0.0) + edge_rate * error
        scale += SCALE_RATE * error * logit(p)
        for c in cs:
            s, n = by.get(c, (0.0, 0.0))
            by[c] = (s * decay + y, n * decay + 1.0)
        overall = [overall[0] * decay + y, overall[1] * decay + 1.0]
        t = twins[r["twin"]]
        twins[r["twin"]] = [t[0] * decay + y, t[1] * decay + 1.0]
    return odds


def loss(y, p):
    return -math.log(p if y else 1.0 - p)


def main():
    args, opts = [], dict(decay=DECAY, prior=PRIOR)
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--decay":
            opts["decay"] = float(next(it))
        elif a == "--prior":
            opts["prior"] = float(next(it))
        elif a == "--no-hint":
            opts["hint"] = False
        elif a == "--no-size":
            opts["size"] = False
        elif a == "--no-edges":
            opts["edges"] = False
        elif a == "--by-twin":
            opts["by_twin"] = (FIRST_GUESS, float(next(it)), float(next(it)))
        elif a == "--one-overall":
            opts["by_twin"] = None
        elif a == "--edge-rate":
            opts["edge_rate"] = float(next(it))
        else:
            args.append(a)
    if not args:
        sys.exit(__doc__)
    for path in args:
        rows = load(path)
        if not rows:
            print(f"{path}: no V events with their context (an older trace?)")
            continue
        copy, variant = replay(rows), replay(rows, **opts)
        total = lambda ps: sum(loss(r["y"], p) for r, p in zip(rows, ps))
        logged = sum(loss(r["y"], r["logged"]) for r in rows)
        print(f"{path}: {len(rows)} decisions, {sum(r['y'] for r in rows)} successes")
        print(f"  log loss: logged {logged:.1f}, replayed {total(copy):.1f}, variant {total(variant):.1f}")
        per = collections.defaultdict(lambda: [0, 0, 0.0, 0.0])
        for r, a, b in zip(rows, copy, variant):
            e = per[r["phase"]]
            e[0] += 1
            e[1] += r["y"]
            e[2] += loss(r["y"], a)
            e[3] += loss(r["y"], b)
        print(f"  {'pass':48} {'n':>5} {'succ':>5} {'loss':>7} {'variant':>7}")
        for phase, (n, s, a, b) in sorted(per.items(), key=lambda kv: -kv[1][2])[:8]:
            print(f"  {phase:48} {n:5} {s:5} {a:7.1f} {b:7.1f}")


if __name__ == "__main__":
    main()
