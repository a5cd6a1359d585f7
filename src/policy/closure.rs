//! Keep what the program needs: a policy over units with known dependencies (unit `a` uses a name
//! that unit `b` declares), which looks for the fewest *roots* whose dependency closure the test
//! still accepts, and keeps exactly that closure.
//!
//! Every candidate keeps a closed set, so it never deletes something a kept unit uses: on a large
//! file (a preprocessed C++ translation unit, where almost everything is library code the bug does
//! not need) the test rejects few candidates, where deleting chunks of items in source order makes
//! most of them fail to compile.
//!
//! The search is a binary search per root: with roots `R` found so far and the units `[0, hi)`
//! still candidates, find the smallest `m` such that `down(R ∪ [0, m))` is interesting; then unit
//! `m - 1` is needed, it joins `R`, and `hi = m - 1`. Each root costs about `log2(n)` tests, so a
//! bug that lives in one function of a large file costs a few tests per item it needs. Nothing depends on
//! the closure being exact: a candidate is committed only when the test accepts it, so a missed
//! dependency costs tests, never correctness.

use std::rc::Rc;

use super::{Deltas, Policy, Unit, intersect, subtract};

/// Who depends on whom, through names: unit `u` uses names, a name is declared by units.
#[derive(Debug, Default)]
pub struct Deps {
    /// Per unit, the ids of the names it uses (compressed rows).
    use_start: Vec<u32>,
    uses: Vec<u32>,
    /// Per name id, the units that declare it.
    decl_start: Vec<u32>,
    declarers: Vec<u32>,
}

impl Deps {
    /// `uses[u]`: the name ids unit `u` uses; `declares[u]`: the name ids it declares. Name ids
    /// run from 0 to `names - 1`.
    pub fn new(uses: &[Vec<u32>], declares: &[Vec<u32>], names: usize) -> Deps {
        let mut d = Deps::default();
        for u in uses {
            d.use_start.push(d.uses.len() as u32);
            d.uses.extend_from_slice(u);
        }
        d.use_start.push(d.uses.len() as u32);
        let mut by_name: Vec<Vec<u32>> = vec![Vec::new(); names];
        for (unit, names) in declares.iter().enumerate() {
            for &n in names {
                by_name[n as usize].push(unit as u32);
            }
        }
        for units in by_name {
            d.decl_start.push(d.declarers.len() as u32);
            d.declarers.extend(units);
        }
        d.decl_start.push(d.declarers.len() as u32);
        d
    }

    pub fn units(&self) -> usize {
        self.use_start.len().saturating_sub(1)
    }

    fn uses_of(&self, u: usize) -> &[u32] {
        &self.uses[self.use_start[u] as usize..self.use_start[u + 1] as usize]
    }

    fn declarers_of(&self, name: usize) -> &[u32] {
        &self.declarers[self.decl_start[name] as usize..self.decl_start[name + 1] as usize]
    }

    /// The seeds and everything they use, transitively; sorted.
    pub fn down(&self, seeds: impl IntoIterator<Item = Unit>) -> Vec<Unit> {
        let mut unit_seen = vec![false; self.units()];
        let mut name_seen = vec![false; self.decl_start.len().saturating_sub(1)];
        let mut stack: Vec<Unit> = Vec::new();
        for s in seeds {
            if !std::mem::replace(&mut unit_seen[s as usize], true) {
                stack.push(s);
            }
        }
        while let Some(u) = stack.pop() {
            for &name in self.uses_of(u as usize) {
                if std::mem::replace(&mut name_seen[name as usize], true) {
                    continue;
                }
                for &v in self.declarers_of(name as usize) {
                    if !std::mem::replace(&mut unit_seen[v as usize], true) {
                        stack.push(v);
                    }
                }
            }
        }
        (0..self.units() as Unit)
            .filter(|&u| unit_seen[u as usize])
            .collect()
    }
}

/// The root search (see the module's text). One candidate per pass.
#[derive(Clone)]
pub struct KeepClosure {
    deps: Rc<Deps>,
    roots: Vec<Unit>,
    /// `down(roots ∪ [0, hi))` is known interesting (it is the configuration).
    hi: usize,
    /// `down(roots ∪ [0, lo))` is known not interesting; `None`: `down(roots)` is untested.
    lo: Option<usize>,
    /// The probe of the pass in flight.
    probe: usize,
    max_roots: usize,
    /// Roots given up front (units that must stay), not counted against `max_roots`.
    given: usize,
    done: bool,
}

impl KeepClosure {
    /// Stops after `max_roots` roots (the closure misses dependencies the test needs, so the
    /// search finds them one by one: the deletion passes do that cheaper).
    pub fn new(deps: Rc<Deps>, max_roots: usize) -> Self {
        let hi = deps.units();
        KeepClosure {
            deps,
            roots: Vec::new(),
            hi,
            lo: None,
            probe: 0,
            max_roots,
            given: 0,
            done: false,
        }
    }

    /// Units that always stay (with what they use): roots from the start.
    pub fn with_roots(mut self, roots: Vec<Unit>) -> Self {
        self.given = roots.len();
        self.roots = roots;
        self
    }

    fn found(&self) -> usize {
        self.roots.len() - self.given
    }

    /// The roots found so far (for tests and the summary).
    pub fn roots(&self) -> &[Unit] {
        &self.roots[self.given..]
    }

    fn keep(&self, m: usize) -> Vec<Unit> {
        self.deps
            .down(self.roots.iter().copied().chain(0..m as Unit))
    }

    /// The next probe, or `None` when the search is over. A probe whose closure is already the
    /// whole configuration needs no test: it counts as interesting.
    fn next(&mut self, config: &[Unit]) -> Option<Vec<Unit>> {
        loop {
            if self.done || self.found() >= self.max_roots {
                return None;
            }
            let m = match self.lo {
                None => 0,
                Some(lo) if lo + 1 >= self.hi => {
                    // unit hi - 1 is needed: down(roots + it + [0, hi - 1)) is the configuration
                    self.roots.push(self.hi as Unit - 1);
                    self.hi -= 1;
                    self.lo = None;
                    continue;
                }
                Some(lo) => lo + (self.hi - lo) / 2,
            };
            let keep = intersect(&self.keep(m), config);
            let delta = subtract(config, &keep);
            if !delta.is_empty() {
                self.probe = m;
                return Some(delta);
            }
            self.passed(m);
        }
    }

    fn passed(&mut self, m: usize) {
        if self.lo.is_none() {
            self.done = true;
        }
        self.hi = m;
    }
}

impl Policy for KeepClosure {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        Box::new(self.next(config).into_iter())
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        match reduced {
            Some(_) => self.passed(self.probe),
            None if self.lo.is_none() && self.hi == 0 => self.done = true,
            None => self.lo = Some(self.probe),
        }
        !self.done && self.found() < self.max_roots
    }

    fn phase(&self) -> String {
        format!("root {} of at most {}", self.found() + 1, self.max_roots)
    }

    fn candidates(&self, _config: &[Unit]) -> Option<usize> {
        Some(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};

    /// A chain 0 <- 1 <- 2 (2 uses 1 uses 0) and unrelated units; name i is declared by unit i.
    fn deps(n: usize, edges: &[(u32, u32)]) -> Rc<Deps> {
        let mut uses = vec![Vec::new(); n];
        for &(user, used) in edges {
            uses[user as usize].push(used);
        }
        let declares: Vec<Vec<u32>> = (0..n as u32).map(|u| vec![u]).collect();
        Rc::new(Deps::new(&uses, &declares, n))
    }

    #[test]
    fn down_follows_uses_transitively() {
        let d = deps(6, &[(2, 1), (1, 0), (4, 3)]);
        assert_eq!(d.down([2]), [0, 1, 2]);
        assert_eq!(d.down([4, 5]), [3, 4, 5]);
        assert_eq!(d.down([]), Vec::<Unit>::new());
    }

    #[test]
    fn one_root_costs_a_binary_search() {
        let n = 1000;
        let d = deps(n, &[(700, 3), (3, 998), (5, 6)]);
        let mut tests = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            tests += 1;
            // the bug needs unit 700, which only compiles with what it uses
            c.contains(&700) && c.contains(&3) && c.contains(&998)
        });
        let mut policy = KeepClosure::new(d, 8);
        let kept = reduce((0..n as Unit).collect(), &mut oracle, &mut policy);
        assert_eq!(kept, [3, 700, 998]);
        assert!(tests <= 14, "{tests} tests");
        assert_eq!(policy.roots(), [700]);
    }

    #[test]
    fn several_roots_are_found_one_by_one() {
        let n = 64;
        let d = deps(n, &[(40, 10)]);
        let mut oracle =
            FnOracle(|c: &[Unit]| c.contains(&40) && c.contains(&10) && c.contains(&7));
        let mut policy = KeepClosure::new(d, 8);
        let kept = reduce((0..n as Unit).collect(), &mut oracle, &mut policy);
        assert_eq!(kept, [7, 10, 40]);
    }

    #[test]
    fn given_roots_stay_with_what_they_use() {
        let d = deps(10, &[(2, 8)]);
        let mut oracle = FnOracle(|c: &[Unit]| c.contains(&5));
        let mut policy = KeepClosure::new(d, 8).with_roots(vec![2]);
        let kept = reduce((0..10).collect(), &mut oracle, &mut policy);
        assert_eq!(kept, [2, 5, 8]);
        assert_eq!(policy.roots(), [5]);
    }

    #[test]
    fn a_test_that_needs_nothing_keeps_nothing() {
        let mut oracle = FnOracle(|_: &[Unit]| true);
        let kept = reduce(
            (0..10).collect(),
            &mut oracle,
            &mut KeepClosure::new(deps(10, &[]), 8),
        );
        assert!(kept.is_empty());
    }

    #[test]
    fn it_stops_after_max_roots_with_an_interesting_result() {
        // every even unit is needed and nothing says so: the search gives up after 3 roots
        let n = 40;
        let interesting = |c: &[Unit]| (0..n as Unit).step_by(2).all(|u| c.contains(&u));
        let mut oracle = FnOracle(interesting);
        let kept = reduce(
            (0..n as Unit).collect(),
            &mut oracle,
            &mut KeepClosure::new(deps(n, &[]), 3),
        );
        assert!(interesting(&kept));
        assert!(kept.len() < n);
    }
}
