//! Tests of the speculation: every width commits the serial sequence.

use crate::engine::shuffled::ShuffledOracle;
use crate::engine::{Observes, Predicts, Runs, Started, Ticket, reduce};
use crate::policy::ddmin::{Ddmin, Sweep};
use crate::policy::giveup::GiveUp;
use crate::policy::hdd::Hdd;
use crate::policy::perses::Perses;
use crate::policy::{Policy, Unit, Verdict};

use crate::tree::toy::{example_tree, parses};

/// A deterministic, non-monotone verdict that keeps the full input.
fn chaotic(c: &[Unit], full: usize, seed: u64) -> bool {
    let h = c.iter().fold(seed, |h, &u| {
        (h ^ u64::from(u)).wrapping_mul(0x100_0000_01b3)
    });
    c.len() == full || h % 3 != 0
}

/// Result and committed sequence at `width` with a shuffling oracle.
fn run(
    width: usize,
    seed: u64,
    units: Vec<Unit>,
    judge: impl FnMut(&[Unit]) -> bool,
    policy: &mut dyn Policy,
) -> (Vec<Unit>, Vec<Vec<Unit>>, usize) {
    let mut oracle = ShuffledOracle::new(judge, width, seed);
    let result = reduce(units, &mut oracle, policy);
    (result, oracle.committed, oracle.peak)
}

#[test]
fn every_width_commits_the_serial_sequence_for_list_minimizers() {
    for seed in 0..20u64 {
        let full = 30;
        let units: Vec<Unit> = (0..full as Unit).collect();
        let judge = |c: &[Unit]| chaotic(c, full, seed);
        let serial = run(1, seed, units.clone(), judge, &mut Sweep::new());
        let plain = reduce(
            units.clone(),
            &mut super::super::FnOracle(judge),
            &mut Sweep::new(),
        );
        assert_eq!(serial.0, plain);
        for width in [2, 3, 8, 17] {
            let wide = run(width, seed + 99, units.clone(), judge, &mut Sweep::new());
            assert_eq!(
                (&wide.0, &wide.1),
                (&serial.0, &serial.1),
                "sweep -j{width} seed {seed}"
            );
            // a give-up rule forks with its count, so the chain looks past its successes too
            let give_up = || GiveUp::new(Sweep::new(), Some(4));
            let a = run(1, seed, units.clone(), judge, &mut give_up());
            let b = run(width, seed + 5, units.clone(), judge, &mut give_up());
            assert_eq!((a.0, a.1), (b.0, b.1), "give-up -j{width} seed {seed}");
            let a = run(1, seed, units.clone(), judge, &mut Ddmin);
            let b = run(width, seed + 7, units.clone(), judge, &mut Ddmin);
            assert_eq!((a.0, a.1), (b.0, b.1), "ddmin -j{width} seed {seed}");
        }
    }
}

#[test]
fn every_width_commits_the_serial_sequence_for_tree_policies() {
    let tree = example_tree();
    let crash = tree.token("crash");
    let judge = |c: &[Unit]| c.contains(&crash) && parses(&tree.render(c));
    for width in [1, 2, 4, 8] {
        for seed in 0..10u64 {
            let mut hdd = Hdd::new(&tree.arena, Sweep::new);
            let h = run(width, seed, tree.all_units(), judge, &mut hdd);
            let mut serial_hdd = Hdd::new(&tree.arena, Sweep::new);
            let hs = run(1, 0, tree.all_units(), judge, &mut serial_hdd);
            assert_eq!((h.0, h.1), (hs.0, hs.1), "hdd -j{width}");
            let p = run(
                width,
                seed,
                tree.all_units(),
                judge,
                &mut Perses::new(&tree.arena, || Ddmin),
            );
            let ps = run(
                1,
                0,
                tree.all_units(),
                judge,
                &mut Perses::new(&tree.arena, || Ddmin),
            );
            assert_eq!(tree.render(&p.0), "int main ( ) { crash ( ) ; }");
            assert_eq!((p.0, p.1), (ps.0, ps.1), "perses -j{width}");
        }
    }
}

#[test]
fn a_chain_of_successes_keeps_every_worker_busy() {
    // deleting any unit but 0 succeeds: the serial run is a long chain of successes
    let units: Vec<Unit> = (0..200).collect();
    let (result, committed, peak) =
        run(8, 5, units, |c: &[Unit]| c.contains(&0), &mut Sweep::new());
    assert_eq!(result, [0]);
    assert!(!committed.is_empty());
    assert_eq!(
        peak, 8,
        "speculation along the success chain fills the workers"
    );
}

#[test]
fn width_one_tests_only_what_the_serial_loop_tests() {
    let mut calls = 0;
    let mut oracle = ShuffledOracle::new(
        |c: &[Unit]| {
            calls += 1;
            c.contains(&2) && c.contains(&7)
        },
        1,
        3,
    );
    let result = reduce((1..=8).collect(), &mut oracle, &mut Ddmin);
    assert_eq!(result, [2, 7]);
    assert_eq!(oracle.peak, 1);
    drop(oracle);
    assert_eq!(calls, 33, "the spec's DDMin vector");
}

#[test]
fn a_recall_of_failed_replacements_gives_every_width_the_same_round() {
    use crate::policy::recall::Recall;
    use std::rc::Rc;
    let tree = example_tree();
    let tokens = tree.tokens();
    let crash = tree.token("crash");
    let tree = &tree;
    let round = |width: usize, seed: u64, failed: &[u64], full: bool| {
        let judge = move |c: &[Unit]| {
            let chaos = full || chaotic(c, c.len() + 1, seed);
            c.contains(&crash) && chaos && parses(&tree.render(c))
        };
        let recall = Rc::new(Recall::new(&tokens, failed.iter().copied().collect()));
        let mut perses = Perses::new(&tree.arena, || Ddmin).recall(recall);
        let shuffle = seed * 31 + width as u64;
        let (result, committed, _) = run(width, shuffle, tree.all_units(), judge, &mut perses);
        (result, committed, perses.failed_keys())
    };
    let mut recalled = 0;
    for seed in 0..20u64 {
        // a first round under a chaotic oracle learns some failures; the next round skips them
        let (_, _, learned) = round(1, seed, &[], false);
        recalled += usize::from(!learned.is_empty());
        let serial = round(1, seed, &learned, true);
        for width in [2, 4, 8] {
            let first = round(width, seed, &[], false);
            assert_eq!(first.2, learned, "keys learned at -j{width} seed {seed}");
            let wide = round(width, seed, &learned, true);
            assert_eq!(wide, serial, "recall -j{width} seed {seed}");
        }
    }
    assert!(
        recalled >= 5,
        "{recalled} of 20 first rounds rejected a replacement"
    );
}

#[test]
fn a_room_that_changes_under_the_loop_changes_neither_commits_nor_the_bound() {
    // a throttle may give fewer slots than the width, differently from one plan to the next
    for seed in 0..20u64 {
        let full = 30;
        let units: Vec<Unit> = (0..full as Unit).collect();
        let judge = |c: &[Unit]| chaotic(c, full, seed);
        let serial = run(1, seed, units.clone(), judge, &mut Sweep::new());
        for width in [2, 5, 16] {
            let mut oracle = ShuffledOracle::new(judge, width, seed + 11);
            oracle.vary_room = true;
            let result = reduce(units.clone(), &mut oracle, &mut Ddmin);
            let plain = reduce(
                units.clone(),
                &mut super::super::FnOracle(judge),
                &mut Ddmin,
            );
            assert_eq!(result, plain, "ddmin -j{width} seed {seed}");
            assert_eq!(oracle.over_room, 0, "a test started beyond the room");
            let mut oracle = ShuffledOracle::new(judge, width, seed + 13);
            oracle.vary_room = true;
            let result = reduce(units.clone(), &mut oracle, &mut Sweep::new());
            assert_eq!(
                (&result, &oracle.committed),
                (&serial.0, &serial.1),
                "sweep -j{width} seed {seed}"
            );
            assert_eq!(oracle.over_room, 0, "a test started beyond the room");
        }
    }
}

/// Records the candidates started before the first wait, at width 2; every test succeeds.
#[derive(Default)]
struct FirstTwo {
    running: Vec<Ticket>,
    waited: bool,
    before_wait: Vec<Vec<Unit>>,
}

impl Runs for FirstTwo {
    fn test(&mut self, _candidate: &[Unit]) -> Verdict {
        Verdict::Interesting
    }

    fn width(&self) -> usize {
        2
    }

    fn start(&mut self, ticket: Ticket, _parent: Option<Ticket>, candidate: &[Unit]) -> Started {
        if !self.waited {
            self.before_wait.push(candidate.to_vec());
        }
        self.running.push(ticket);
        Started::Running
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        self.waited = true;
        let t = self.running.pop()?;
        Some((t, Some(Verdict::Interesting)))
    }
}

impl Predicts for FirstTwo {}

impl Observes for FirstTwo {}

/// A bulk pass as the cascade's first layer: units 0-3 go, else 4-7; after a success a pass
/// with nothing to propose (the layer's sweep on what is left of it), then single units.
#[derive(Clone, Copy)]
struct Bulk(u8);

impl Policy for Bulk {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> crate::policy::Deltas<'a> {
        match self.0 {
            0 => Box::new(
                [vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
                    .into_iter()
                    .filter(|d| d.iter().all(|u| config.contains(u))),
            ),
            1 => Box::new(std::iter::empty()),
            _ => Box::new(config.iter().map(|&u| vec![u])),
        }
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let stop = self.0 == 2 && reduced.is_none();
        self.0 = (self.0 + 1).min(2);
        !stop
    }

    fn phase(&self) -> String {
        format!("bulk {}", self.0)
    }
}

/// With nothing learned yet (the run's first candidate, in practice a bulk deletion that mostly
/// succeeds), the second worker takes the first candidate's success branch: a candidate
/// proposed from the configuration the first one leaves, one empty pass later (so that an even
/// guess would hand it the failure branch, met first).
#[test]
fn the_first_candidate_of_a_run_is_bet_to_succeed() {
    let mut oracle = FirstTwo::default();
    reduce((0..8).collect(), &mut oracle, &mut Bulk(0));
    let started = &oracle.before_wait;
    assert_eq!(started.len(), 2, "{started:?}");
    let (first, second) = (&started[0], &started[1]);
    assert!(
        second.iter().all(|u| first.contains(u)) && second.len() < first.len(),
        "the success branch: {started:?}"
    );
}

#[test]
fn a_packed_delta_gives_back_the_units_it_was_given() {
    use super::node::Packed;
    // with whether it is kept as runs: only when they take less room than the list
    let cases: [(&[Unit], bool); 6] = [
        (&[7], false),
        (&[0, 1, 2, 3, 4, 5, 6, 7], true),
        (&[3, 4, 5, 9, 10, 11, 12, 20], true),
        (&[1, 3, 5, 7, 9], false),
        (&[1, 2, 5, 6], false),
        (&[0, 1, 2, Unit::MAX - 1, Unit::MAX], true),
    ];
    for (delta, as_runs) in cases {
        let packed = Packed::pack(delta.to_vec());
        assert_eq!(&*packed.units(), delta);
        assert_eq!(packed.iter().collect::<Vec<_>>(), delta);
        assert_eq!(matches!(packed, Packed::Runs(_)), as_runs, "{delta:?}");
    }
}
