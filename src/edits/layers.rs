//! A rewrite pass's layers as one policy, so that one `reduce` call runs the whole pass and the
//! chain (`engine/chain.rs`) can speculate from one layer into the next.
//!
//! A pass lists hunks that may overlap; [`super::layers_of_hunks`] cuts them into layers of
//! disjoint hunks. Every hunk of every layer is a unit of one [`super::EditSpace`] (all edits are
//! ranges of the same text). Layer after layer, a fresh minimizer (a give-up rule around a
//! chunk sweep) sees only the layer's *eligible* units: those whose edits stay clear of every
//! edit applied by the layers before (decided when the layer starts, as a hunk is never
//! half-applied). So candidates never hold overlapping edits, and the sequence of candidates
//! is the one the layers would give run one `reduce` call each, while a layer's end is not a
//! point where every worker must drain.
//!
//! The same holds one level up ([`Plan::grouped`], [`Layers::grouped`]): consecutive passes of
//! the driver's cycle, listed on the same text, run as one call, pass after pass, and the call
//! stops after the first pass that commits something. The passes before it changed nothing, so
//! each saw the very text it would have been listed on alone; the ones after it are listed
//! again on the new text by the driver. So a pass that finds nothing does not end with every
//! worker drained before the next one starts.
//!
//! A cascade ([`super::cascade`], [`Layers::chained`]) goes on after a pass that commits: its
//! later passes were listed as what the earlier ones free, and each of their units carries a
//! gate (byte ranges that edits applied before it must cover), checked with the overlap rule
//! when its layer starts.

use std::rc::Rc;

use crate::policy::ddmin::Sweep;
use crate::policy::giveup::GiveUp;
use crate::policy::{Deltas, Policy, Unit, intersect};

use super::Hunk;

/// How each layer's minimizer is made.
#[derive(Clone, Copy, Debug)]
pub struct Minimizer {
    /// One hunk per candidate (a pass whose hunks mostly fail alone).
    pub one_at_a_time: bool,
    /// Stop halving at 1/`coarse` of the layer's units (`None`: down to single units).
    pub coarse: Option<usize>,
    /// Give up a layer, and the pass, after this many rejected candidates in a row.
    pub limit: Option<usize>,
}

impl Minimizer {
    fn make(&self, units: usize) -> GiveUp<Sweep> {
        let sweep = match (self.one_at_a_time, self.coarse) {
            (true, _) => Sweep::singles(),
            (false, Some(chunks)) => Sweep::down_to(units.div_ceil(chunks)),
            (false, None) => Sweep::new(),
        };
        GiveUp::new(sweep, self.limit)
    }
}

/// The hunks of one pass, or of a group of passes listed on the same text, in layer order, and
/// where each layer and each pass (a *segment* of layers) starts.
pub struct Plan {
    pub hunks: Vec<Hunk>,
    /// Unit ranges of the layers: layer `i` is `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
    /// Layer ranges of the passes: pass `s` is layers `segments[s]..segments[s + 1]`.
    segments: Vec<usize>,
    /// Each unit's gate (none when empty): byte ranges that edits applied by the layers before
    /// must cover for the unit to be eligible (see [`super::cascade`]).
    gates: Vec<Vec<(u32, u32)>>,
}

impl Plan {
    /// One pass's layers.
    pub fn new(layers: Vec<Vec<Hunk>>) -> Plan {
        Plan::grouped(vec![layers])
    }

    /// The layers of several passes, each listed on the same text.
    pub fn grouped(passes: Vec<Vec<Vec<Hunk>>>) -> Plan {
        let (mut bounds, mut segments) = (vec![0], vec![0]);
        let mut hunks = Vec::new();
        for layers in passes {
            for layer in layers {
                hunks.extend(layer);
                bounds.push(hunks.len());
            }
            segments.push(bounds.len() - 1);
        }
        Plan {
            gates: vec![Vec::new(); hunks.len()],
            hunks,
            bounds,
            segments,
        }
    }

    /// Gives each unit the gate `gate(pass, hunk)` says.
    pub fn with_gates(mut self, gate: impl Fn(usize, &Hunk) -> Vec<(u32, u32)>) -> Plan {
        for s in 0..self.passes() {
            let units = self.bounds[self.segments[s]]..self.bounds[self.segments[s + 1]];
            for u in units {
                self.gates[u] = gate(s, &self.hunks[u]);
            }
        }
        self
    }

    pub fn layers(&self) -> usize {
        self.bounds.len() - 1
    }

    pub fn passes(&self) -> usize {
        self.segments.len() - 1
    }

    /// The first unit of pass `s` (where the next pass's start when it has no layer).
    pub fn pass_start(&self, s: usize) -> usize {
        self.bounds[self.segments[s]]
    }

    /// The first pass from `s` on that has a layer (`passes()` if none).
    fn next_with_layers(&self, mut s: usize) -> usize {
        while s < self.passes() && self.segments[s] == self.segments[s + 1] {
            s += 1;
        }
        s
    }

    /// The units of layer `i` that stay clear of every edit of the units `config` lacks
    /// (applied) among the layers before it, and whose gate those edits cover.
    fn eligible(&self, i: usize, config: &[Unit]) -> Vec<Unit> {
        let (start, end) = (self.bounds[i], self.bounds[i + 1]);
        let mut kept = config.iter().peekable();
        let mut fixed: Vec<(u32, u32)> = Vec::new();
        for u in 0..start {
            while kept.next_if(|&&k| (k as usize) < u).is_some() {}
            if kept.next_if(|&&k| k as usize == u).is_none() {
                fixed.extend(self.hunks[u].iter().map(|e| (e.start, e.end)));
            }
        }
        fixed.sort_unstable();
        let clear = |s: u32, e: u32| {
            let i = fixed.partition_point(|f| f.1 <= s);
            fixed.get(i).is_none_or(|f| e <= f.0)
        };
        let covered = |s: u32, e: u32| {
            let i = fixed.partition_point(|f| f.1 <= s);
            fixed.get(i).is_some_and(|f| f.0 <= s && e <= f.1)
        };
        (start..end)
            .filter(|&u| self.hunks[u].iter().all(|e| clear(e.start, e.end)))
            .filter(|&u| self.gates[u].iter().all(|&(s, e)| covered(s, e)))
            .map(|u| u as Unit)
            .filter(|u| config.binary_search(u).is_ok())
            .collect()
    }
}

/// The layers of one pass, minimized one after the other (see the module documentation); or
/// of a group of passes listed on the same text, pass after pass, stopping after the first pass
/// that commits something (the passes after it must be listed again on the new text).
#[derive(Clone)]
pub struct Layers {
    plan: Rc<Plan>,
    /// Each pass's minimizer.
    how: Rc<[Minimizer]>,
    /// Each pass's name, shown before its minimizer's phase (`None`: one pass, no name).
    names: Option<Rc<[&'static str]>>,
    /// Go on to the next pass after one that committed (the passes were listed as a chain,
    /// [`super::cascade`]); else a group stops there.
    chained: bool,
    /// The current pass and layer.
    pass: usize,
    layer: usize,
    /// Did the current pass commit anything?
    committed: bool,
    /// The current layer's eligible units and its minimizer, once the layer has started.
    current: Option<(Vec<Unit>, GiveUp<Sweep>)>,
    /// What the current pass's minimizer sees: the configuration's eligible units.
    view: Vec<Unit>,
}

impl Layers {
    /// One pass.
    pub fn new(plan: Rc<Plan>, how: Minimizer) -> Layers {
        Layers::build(plan, Rc::new([how]), None)
    }

    /// A group of passes (`how` and `names` one per pass of the plan).
    pub fn grouped(plan: Rc<Plan>, how: Vec<Minimizer>, names: Vec<&'static str>) -> Layers {
        assert!(how.len() == plan.passes() && names.len() == plan.passes());
        Layers::build(plan, how.into(), Some(names.into()))
    }

    /// The segments of a cascade ([`super::cascade`]): every pass runs, whatever the passes
    /// before it committed.
    pub fn chained(plan: Rc<Plan>, how: Vec<Minimizer>, names: Vec<&'static str>) -> Layers {
        Layers {
            chained: true,
            ..Layers::grouped(plan, how, names)
        }
    }

    fn build(plan: Rc<Plan>, how: Rc<[Minimizer]>, names: Option<Rc<[&'static str]>>) -> Layers {
        let pass = plan.next_with_layers(0);
        let layer = plan.segments[pass];
        Layers {
            plan,
            how,
            names,
            chained: false,
            pass,
            layer,
            committed: false,
            current: None,
            view: Vec::new(),
        }
    }

    /// The pass the policy is in; once every pass ran without a commit, the number of passes.
    /// After a group's call: the pass that changed the text, if one did.
    pub fn pass(&self) -> usize {
        self.pass
    }

    /// Starts the current layer over `config` if it has not started.
    fn start(&mut self, config: &[Unit]) -> &mut (Vec<Unit>, GiveUp<Sweep>) {
        let (plan, how, layer) = (&self.plan, self.how[self.pass], self.layer);
        self.current.get_or_insert_with(|| {
            let eligible = plan.eligible(layer, config);
            let minimizer = how.make(eligible.len());
            (eligible, minimizer)
        })
    }
}

impl Policy for Layers {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        if self.pass >= self.plan.passes() {
            return Box::new(std::iter::empty());
        }
        let view = intersect(config, &self.start(config).0);
        self.view = view;
        let Layers { view, current, .. } = self;
        match current {
            Some((_, inner)) => inner.propose(view),
            None => Box::new(std::iter::empty()),
        }
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let Some((eligible, inner)) = self.current.as_mut() else {
            // a pass over no layer at all
            return false;
        };
        let view = reduced.map(|c| intersect(c, eligible));
        self.committed |= reduced.is_some();
        if inner.on_reduced(view.as_deref()) {
            return true;
        }
        // a give-up rule ends the layer and the pass
        let pass_over = inner.gave_up() || self.layer + 1 == self.plan.segments[self.pass + 1];
        self.current = None;
        if !pass_over {
            self.layer += 1;
            return true;
        }
        if self.committed && !self.chained {
            return false;
        }
        self.pass = self.plan.next_with_layers(self.pass + 1);
        if self.pass >= self.plan.passes() {
            return false;
        }
        self.layer = self.plan.segments[self.pass];
        true
    }

    fn phase(&self) -> String {
        let inner = self.current.as_ref().map(|(_, inner)| inner.phase());
        let inner = inner.unwrap_or_default();
        match self.names.as_ref().and_then(|n| n.get(self.pass)) {
            Some(name) => crate::report::progress::phase_text(name, &inner),
            None => inner,
        }
    }

    fn accepted(&mut self, index: usize) {
        if let Some((_, inner)) = self.current.as_mut() {
            inner.accepted(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::{Edit, EditSpace, layers_of_hunks};
    use crate::engine::shuffled::ShuffledOracle;
    use crate::engine::{FnOracle, reduce};

    /// `n` overlapping hunks over a text of digits: hunk i replaces bytes i..i+3 (some by
    /// nothing, some by `x`), so the layers interleave.
    fn sample(n: usize) -> (Vec<u8>, Vec<Hunk>) {
        let src: Vec<u8> = (0..n + 3).map(|i| b'0' + (i % 10) as u8).collect();
        let hunks = (0..n)
            .map(|i| vec![Edit::new(i, i + 3, if i % 3 == 0 { b"x" } else { b"" })])
            .collect();
        (src, hunks)
    }

    /// A verdict on the rendered text: deterministic, not monotone.
    fn judge(text: &[u8], seed: u64) -> bool {
        let h = text.iter().fold(seed, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        text.contains(&b'7') && h % 3 != 0
    }

    /// The pass as it ran before: one `reduce` call per layer, committed edits fixed.
    fn layer_by_layer(src: &[u8], hunks: Vec<Hunk>, seed: u64, how: Minimizer) -> Vec<u8> {
        let mut space = EditSpace::new(src.to_vec());
        let mut config: Vec<Unit> = Vec::new();
        for layer in layers_of_hunks(hunks, src) {
            space.next_layer(&config, layer);
            if space.hunks.is_empty() {
                continue;
            }
            let mut policy = how.make(space.hunks.len());
            let mut oracle = FnOracle(|c: &[Unit]| judge(&space.render(c), seed));
            config = reduce(space.all_units(), &mut oracle, &mut policy);
            if policy.gave_up() {
                break;
            }
        }
        space.render(&config)
    }

    fn one_policy(
        src: &[u8],
        hunks: Vec<Hunk>,
        seed: u64,
        how: Minimizer,
        width: usize,
    ) -> Vec<u8> {
        let plan = Rc::new(Plan::new(layers_of_hunks(hunks, src)));
        let mut space = EditSpace::new(src.to_vec());
        space.next_layer(&[], plan.hunks.clone());
        let mut oracle =
            ShuffledOracle::new(|c: &[Unit]| judge(&space.render(c), seed), width, seed);
        let result = reduce(space.all_units(), &mut oracle, &mut Layers::new(plan, how));
        space.render(&result)
    }

    #[test]
    fn one_call_gives_what_one_call_per_layer_gave_at_every_width() {
        for seed in 0..30u64 {
            let (src, hunks) = sample(12 + seed as usize % 7);
            for how in [
                Minimizer {
                    one_at_a_time: false,
                    coarse: None,
                    limit: None,
                },
                Minimizer {
                    one_at_a_time: true,
                    coarse: None,
                    limit: Some(3),
                },
                Minimizer {
                    one_at_a_time: false,
                    coarse: Some(2),
                    limit: Some(5),
                },
            ] {
                let before = layer_by_layer(&src, hunks.clone(), seed, how);
                for width in [1, 2, 5, 16] {
                    let after = one_policy(&src, hunks.clone(), seed, how, width);
                    assert_eq!(
                        String::from_utf8_lossy(&after),
                        String::from_utf8_lossy(&before),
                        "seed {seed} {how:?} -j{width}"
                    );
                }
            }
        }
    }

    /// Passes run one call each, as the cycle ran them before groups: stop after the first that
    /// changes the text (the next pass would be listed again on the new text).
    fn pass_by_pass(src: &[u8], passes: &[Vec<Hunk>], seed: u64, how: &[Minimizer]) -> Vec<u8> {
        for (hunks, how) in passes.iter().zip(how) {
            let after = layer_by_layer(src, hunks.clone(), seed, *how);
            if after != src {
                return after;
            }
        }
        src.to_vec()
    }

    #[test]
    fn a_group_gives_what_its_passes_gave_one_call_each_at_every_width() {
        let hows = [
            Minimizer {
                one_at_a_time: true,
                coarse: None,
                limit: Some(2),
            },
            Minimizer {
                one_at_a_time: false,
                coarse: None,
                limit: None,
            },
        ];
        let mut changed_by_a_later_pass = 0;
        for seed in 0..40u64 {
            let (src, hunks) = sample(10 + seed as usize % 5);
            // three passes over the same text: a few hunks each (the first may have none)
            let passes: Vec<Vec<Hunk>> = (0..3)
                .map(|p| {
                    let pick = |i: &usize| {
                        (i + p + seed as usize).is_multiple_of(4)
                            && (p > 0 || !seed.is_multiple_of(3))
                    };
                    (0..hunks.len())
                        .filter(pick)
                        .map(|i| hunks[i].clone())
                        .collect()
                })
                .collect();
            let how: Vec<Minimizer> = (0..3).map(|p| hows[(p + seed as usize) % 2]).collect();
            let before = pass_by_pass(&src, &passes, seed, &how);
            let first = layer_by_layer(&src, passes[0].clone(), seed, how[0]);
            changed_by_a_later_pass += usize::from(first == src && before != src);
            for width in [1, 2, 5, 16] {
                let layers = passes.iter().map(|h| layers_of_hunks(h.clone(), &src));
                let plan = Rc::new(Plan::grouped(layers.collect()));
                let mut space = EditSpace::new(src.clone());
                space.next_layer(&[], plan.hunks.clone());
                let mut oracle =
                    ShuffledOracle::new(|c: &[Unit]| judge(&space.render(c), seed), width, seed);
                let mut policy = Layers::grouped(plan, how.clone(), vec!["a", "b", "c"]);
                let result = reduce(space.all_units(), &mut oracle, &mut policy);
                let after = space.render(&result);
                assert_eq!(
                    String::from_utf8_lossy(&after),
                    String::from_utf8_lossy(&before),
                    "seed {seed} -j{width}"
                );
                // the pass it stopped in is the one that changed the text
                if after != src {
                    let k = policy.pass();
                    let alone = layer_by_layer(&src, passes[k].clone(), seed, how[k]);
                    assert_eq!(alone, after, "seed {seed} -j{width}: pass {k}");
                } else {
                    assert_eq!(policy.pass(), 3, "seed {seed}: every pass ran");
                }
            }
        }
        assert!(
            changed_by_a_later_pass > 0,
            "no sample reached a later pass"
        );
    }

    #[test]
    fn a_hunk_that_overlaps_an_applied_one_never_goes_in() {
        // two layers: 0..3 -> "", and 1..4 -> "" overlapping it; everything is interesting
        let src = b"abcdef".to_vec();
        let hunks = vec![vec![Edit::new(0, 3, b"")], vec![Edit::new(1, 4, b"")]];
        let plan = Rc::new(Plan::new(layers_of_hunks(hunks, &src)));
        assert_eq!(plan.layers(), 2);
        let mut space = EditSpace::new(src.clone());
        space.next_layer(&[], plan.hunks.clone());
        let mut seen = Vec::new();
        let how = Minimizer {
            one_at_a_time: false,
            coarse: None,
            limit: None,
        };
        let mut oracle = FnOracle(|c: &[Unit]| {
            seen.push(c.to_vec());
            true
        });
        let result = reduce(space.all_units(), &mut oracle, &mut Layers::new(plan, how));
        assert_eq!(space.render(&result), b"def");
        // the second layer's hunk was never proposed once the first was applied
        assert_eq!(seen, vec![vec![1]]);
    }
}
