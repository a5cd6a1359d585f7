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
    use crate::reduce::{FnOracle, reduce};

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
