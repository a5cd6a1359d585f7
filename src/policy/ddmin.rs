//! DDMin as the specification states it (`seeds/002`): partition the configuration into `n`
//! contiguous chunks of `ceil(len / n)` units, propose first every complement ("keep only chunk
//! i") then every chunk ("drop chunk i"), with `n` = 2, 4, 8, ... capped at the number of units.
//! Stateless: the granularity lives inside one `propose` call. Index arithmetic only.

use super::{Deltas, Policy, Unit};

#[derive(Clone, Copy, Debug, Default)]
pub struct Ddmin;

impl Policy for Ddmin {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        Box::new(DdminDeltas::new(config))
    }

    fn phase(&self) -> String {
        "ddmin".into()
    }
}

/// The lazy candidate stream of one DDMin pass.
struct DdminDeltas<'a> {
    config: &'a [Unit],
    /// Current granularity; `None` once every granularity is exhausted.
    n: Option<usize>,
    /// Chunk size at the current granularity.
    size: usize,
    /// Position in the 2 * chunks candidates of this granularity.
    step: usize,
}

impl<'a> DdminDeltas<'a> {
    fn new(config: &'a [Unit]) -> Self {
        let mut it = DdminDeltas {
            config,
            n: None,
            size: 0,
            step: 0,
        };
        it.enter(2);
        it
    }

    fn enter(&mut self, n: usize) {
        self.n = Some(n);
        self.size = self.config.len().div_ceil(n).max(1);
        self.step = 0;
    }

    fn chunks(&self) -> usize {
        self.config.len().div_ceil(self.size)
    }

    /// The next granularity, as `successors(2, n < units => min(2n, units))` in the spec.
    fn advance(&mut self) {
        let units = self.config.len();
        match self.n {
            Some(n) if n < units => self.enter((2 * n).min(units)),
            _ => self.n = None,
        }
    }
}

impl Iterator for DdminDeltas<'_> {
    type Item = Vec<Unit>;

    fn next(&mut self) -> Option<Vec<Unit>> {
        loop {
            self.n?;
            let chunks = self.chunks();
            if self.step >= 2 * chunks {
                self.advance();
                continue;
            }
            let i = self.step % chunks;
            let complement = self.step < chunks;
            self.step += 1;
            let lo = i * self.size;
            let hi = (lo + self.size).min(self.config.len());
            let delta: Vec<Unit> = if complement {
                self.config[..lo]
                    .iter()
                    .chain(&self.config[hi..])
                    .copied()
                    .collect()
            } else {
                self.config[lo..hi].to_vec()
            };
            if !delta.is_empty() {
                return Some(delta);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};

    #[test]
    fn ddmin_reaches_2_and_7_in_exactly_33_oracle_calls() {
        let mut calls = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            c.contains(&2) && c.contains(&7)
        });
        let result = reduce((1..=8).collect(), &mut oracle, &mut Ddmin);
        assert_eq!(result, [2, 7]);
        assert_eq!(calls, 33);
    }

    #[test]
    fn ddmin_proposes_complements_before_chunks_at_each_granularity() {
        let config: Vec<Unit> = (1..=4).collect();
        let deltas: Vec<Vec<Unit>> = Ddmin.propose(&config).collect();
        assert_eq!(
            deltas,
            vec![
                vec![3, 4],
                vec![1, 2],
                vec![1, 2],
                vec![3, 4],
                vec![2, 3, 4],
                vec![1, 3, 4],
                vec![1, 2, 4],
                vec![1, 2, 3],
                vec![1],
                vec![2],
                vec![3],
                vec![4],
            ]
        );
    }

    #[test]
    fn ddmin_on_one_unit_tries_only_deleting_it() {
        let config = [7];
        let deltas: Vec<Vec<Unit>> = Ddmin.propose(&config).collect();
        assert_eq!(deltas, vec![vec![7]]);
        assert_eq!(Ddmin.propose(&[]).count(), 0);
    }

    #[test]
    fn ddmin_result_is_one_minimal_for_a_monotone_oracle() {
        let mut oracle = FnOracle(|c: &[Unit]| c.iter().filter(|&&u| u % 3 == 0).count() >= 2);
        let result = reduce((0..40).collect(), &mut oracle, &mut Ddmin);
        assert_eq!(result.len(), 2);
        assert!(result.iter().all(|u| u % 3 == 0));
    }
}

/// A stateful inner minimizer for list elements: deletion sweeps whose chunk size starts at the
/// whole list (the empty list is tried first) and halves down to 1. One pass offers the rest of
/// the current sweep and then every smaller size, lazily; after a success the next pass goes on
/// from the same size and position instead of restarting. It is finished when a whole size-1
/// sweep fails, so its result is 1-minimal. Cheaper than the spec's stateless DDMin when a list
/// loses many elements one by one: a success costs O(1) failed tests, not a restart.
#[derive(Debug, Default)]
pub struct Sweep {
    /// Chunk size where the next pass starts; 0 before the first pass (then: the whole list).
    size: usize,
    /// Element offset where the next pass starts.
    offset: usize,
    /// The smallest chunk size (1: the result is 1-minimal; larger: a coarse, bounded sweep).
    floor: usize,
    /// (size, offset) of each candidate proposed this pass, in order.
    pulled: std::rc::Rc<std::cell::RefCell<Vec<(usize, usize)>>>,
    /// The index of the committed candidate, if the loop said which.
    won: Option<usize>,
}

impl Sweep {
    pub fn new() -> Sweep {
        Sweep {
            floor: 1,
            ..Sweep::default()
        }
    }

    /// A sweep that stops halving at chunks of `floor` elements: about `2 * len / floor`
    /// candidates at most, for bulk passes on inputs where every test is expensive.
    pub fn down_to(floor: usize) -> Sweep {
        Sweep {
            floor: floor.max(1),
            ..Sweep::default()
        }
    }

    /// A sweep that starts at chunk size 1: one element per candidate, for lists where most
    /// deletions fail (bisecting them would cost about two tests per element instead of one).
    pub fn singles() -> Sweep {
        Sweep {
            size: 1,
            floor: 1,
            ..Sweep::default()
        }
    }
}

/// A deep copy: the clone gets its own log of what was pulled.
impl Clone for Sweep {
    fn clone(&self) -> Sweep {
        Sweep {
            size: self.size,
            offset: self.offset,
            floor: self.floor,
            pulled: std::rc::Rc::new(std::cell::RefCell::new(self.pulled.borrow().clone())),
            won: self.won,
        }
    }
}

impl Policy for Sweep {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        if self.size == 0 {
            self.size = config.len().max(1);
        }
        self.pulled.borrow_mut().clear();
        self.won = None;
        let (first, start, pulled) = (self.size, self.offset, self.pulled.clone());
        let floor = self.floor.max(1);
        let sizes = std::iter::successors(Some(first), move |&s| {
            (s > floor).then(|| s.div_ceil(2).max(floor))
        });
        Box::new(sizes.flat_map(move |size| {
            let pulled = pulled.clone();
            let from = if size == first { start } else { 0 };
            (from..config.len()).step_by(size).map(move |off| {
                pulled.borrow_mut().push((size, off));
                config[off..(off + size).min(config.len())].to_vec()
            })
        }))
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        if reduced.is_some() {
            // the elements after the deleted chunk moved into its place: go on from there
            let pulled = self.pulled.borrow();
            let won = self.won.unwrap_or(pulled.len().saturating_sub(1));
            (self.size, self.offset) = pulled.get(won).copied().unwrap_or((self.size, 0));
            return true;
        }
        // this pass ended with a floor-size sweep; it covered every element iff it started at 0
        let floor = self.floor.max(1);
        let complete = self.size > floor || self.offset == 0;
        (self.size, self.offset) = (floor, 0);
        !complete
    }

    fn phase(&self) -> String {
        format!("sweep chunk {}", self.size)
    }

    /// The rest of the current size's sweep and every smaller size's.
    fn candidates(&self, config: &[Unit]) -> Option<usize> {
        let first = if self.size == 0 {
            config.len().max(1)
        } else {
            self.size
        };
        let sizes = std::iter::successors(Some(first), |&s| (s > 1).then(|| s.div_ceil(2)));
        let count = |size: usize| {
            let from = if size == first { self.offset } else { 0 };
            config.len().saturating_sub(from).div_ceil(size)
        };
        Some(sizes.map(count).sum())
    }

    fn accepted(&mut self, index: usize) {
        self.won = Some(index);
    }
}

#[cfg(test)]
mod sweep_tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};

    #[test]
    fn candidates_counts_what_propose_yields() {
        for len in [0usize, 1, 2, 7, 64, 100] {
            let config: Vec<Unit> = (0..len as Unit).collect();
            for (size, offset) in [(0, 0), (1, 0), (4, 2), (len.max(1), 0), (3, len)] {
                let mut sweep = Sweep {
                    size,
                    offset,
                    ..Sweep::default()
                };
                let expected = sweep.candidates(&config);
                assert_eq!(
                    expected,
                    Some(sweep.propose(&config).count()),
                    "len {len} size {size} offset {offset}"
                );
            }
        }
    }

    #[test]
    fn singles_try_one_element_at_a_time() {
        let config: Vec<Unit> = (0..3).collect();
        let deltas: Vec<Vec<Unit>> = Sweep::singles().propose(&config).collect();
        assert_eq!(deltas, vec![vec![0], vec![1], vec![2]]);
    }

    #[test]
    fn sweep_tries_the_empty_list_first() {
        let config: Vec<Unit> = (0..5).collect();
        let first = Sweep::new().propose(&config).next();
        assert_eq!(first, Some(config.clone()));
    }

    #[test]
    fn sweep_reaches_2_and_7_and_is_one_minimal() {
        let mut calls = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            c.contains(&2) && c.contains(&7)
        });
        let result = reduce((1..=8).collect(), &mut oracle, &mut Sweep::new());
        assert_eq!(result, [2, 7]);
        assert!(calls <= 33, "{calls} calls");
    }

    #[test]
    fn a_floored_sweep_stops_at_its_chunk_size_and_keeps_what_it_cannot_split() {
        let mut calls = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            c.contains(&2) && c.contains(&13)
        });
        let result = reduce((0..16).collect(), &mut oracle, &mut Sweep::down_to(4));
        // chunks of 4 at the smallest: the chunks holding 2 and 13 stay whole
        assert_eq!(result, [0, 1, 2, 3, 12, 13, 14, 15]);
        let mut full = FnOracle(|c: &[Unit]| c.contains(&2) && c.contains(&13));
        assert_eq!(
            reduce((0..16).collect(), &mut full, &mut Sweep::new()),
            [2, 13]
        );
        // 16, two 8s, four 4s, and a last sweep of the two 4s left
        assert!(calls <= 9, "{calls} calls");
    }

    #[test]
    fn sweep_removing_many_scattered_units_costs_fewer_tests_than_ddmin() {
        let keep = |c: &[Unit]| [3, 17, 40, 41, 77].iter().all(|k| c.contains(k));
        let (mut sweep_calls, mut ddmin_calls) = (0, 0);
        let mut o1 = FnOracle(|c: &[Unit]| {
            sweep_calls += 1;
            keep(c)
        });
        let r1 = reduce((0..100).collect(), &mut o1, &mut Sweep::new());
        let mut o2 = FnOracle(|c: &[Unit]| {
            ddmin_calls += 1;
            keep(c)
        });
        let r2 = reduce((0..100).collect(), &mut o2, &mut Ddmin);
        assert_eq!(r1, [3, 17, 40, 41, 77]);
        assert_eq!(r1, r2);
        assert!(
            sweep_calls < ddmin_calls,
            "sweep {sweep_calls} vs ddmin {ddmin_calls}"
        );
    }
}
