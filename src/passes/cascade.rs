//! The opening bulk passes by name as one listing, so that one `reduce` call runs them all and
//! the chain can speculate from one round into the next.
//!
//! Run one call each, the bulk passes alternate: unreferenced items go, function bodies become
//! `;`, which leaves more items unreferenced, and so on, each round listed on a fresh parse of
//! the text the round before left. Every round's edits are ranges of the first text, though
//! (items and bodies of it), and which items a round frees is a question of where their names
//! are used: an item whose every use (outside itself) lies inside the edits applied before it is
//! unreferenced then. So the rounds are listed here on one parse, as the segments of one plan:
//!
//! 1. `unreferenced`: the pass's own listing ([`Unreferenced`]), as on a fresh parse;
//! 2. `definitions-to-declarations`: likewise ([`Declarations`]); bodies inside items the first
//!    segment deletes are not eligible then (the plan's overlap rule), as they would not exist;
//! 3. then round after round, the items (and fields, enum members) that become unreferenced
//!    if every edit listed before them is applied, each with a *gate*: the ranges of its uses,
//!    which must all lie inside edits applied by then (see [`super::layers::Plan::eligible`]).
//!
//! An item whose gate stays closed (a user was kept: its deletion failed) is not tried in this
//! call; the driver lists everything again on the new text, as before.

use std::collections::{HashMap, HashSet};

use tree_sitter::Tree;

use super::names::{
    Declarations, Unreferenced, declared_names, declaring_sites, group_by_names, items,
    names_in_node,
};
use crate::edits::layers::Plan;
use crate::edits::{Edit, Hunk, Pass, layers_of_hunks, preorder, text};
use crate::lang::table::RewriteTable;

/// At most this many rounds of freed items after the first two segments (a deeper chain of
/// single users is left to the driver's next call).
const MAX_ROUNDS: usize = 16;

/// A byte range of the text.
pub type Range = (u32, u32);

/// One segment of the cascade: the pass it stands for, its hunks, and each hunk's gate (empty:
/// none).
pub struct Segment {
    pub name: &'static str,
    pub hunks: Vec<Hunk>,
    pub gates: Vec<Vec<Range>>,
}

/// An item that may become unreferenced: its deletion, the names it declares and where else
/// they are used.
struct Candidate<'s> {
    edit: Edit,
    names: Vec<&'s [u8]>,
    uses: Vec<Range>,
}

/// The cascade's segments on the text `src` parsed as `tree` (see the module documentation).
pub fn cascade(tree: &Tree, src: &[u8], t: &RewriteTable) -> Vec<Segment> {
    let first = Unreferenced.hunks(tree, src, t);
    let bodies = Declarations.hunks(tree, src, t);
    let mut removed = Ranges::default();
    removed.add(
        first
            .iter()
            .chain(&bodies)
            .flatten()
            .map(|e| (e.start, e.end)),
    );
    let plain = |name, hunks: Vec<Hunk>| Segment {
        name,
        gates: vec![Vec::new(); hunks.len()],
        hunks,
    };
    let mut out = vec![
        plain(Unreferenced.name(), first),
        plain(Declarations.name(), bodies),
    ];
    let candidates = candidates(tree, src, t);
    // those unreferenced already are the first segment's (or, declared twice, never go)
    let mut placed: Vec<bool> = candidates.iter().map(|c| c.uses.is_empty()).collect();
    for _ in 0..MAX_ROUNDS {
        let mut freed = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            if placed[i] {
                continue;
            }
            if removed.overlaps(c.edit.start, c.edit.end) {
                placed[i] = true; // inside (or around) something deleted already
            } else if c.uses.iter().all(|&(s, e)| removed.covers(s, e)) {
                placed[i] = true;
                freed.push(i);
            }
        }
        if freed.is_empty() {
            break;
        }
        let mut uses: HashMap<(u32, u32), Vec<Range>> = HashMap::new();
        for &i in &freed {
            let c = &candidates[i];
            uses.entry((c.edit.start, c.edit.end))
                .or_default()
                .extend(&c.uses);
        }
        let hunks = group_by_names(
            freed
                .iter()
                .map(|&i| (candidates[i].edit.clone(), candidates[i].names.clone()))
                .collect(),
        );
        let gates = hunks
            .iter()
            .map(|h| {
                let mut gate: Vec<Range> = h
                    .iter()
                    .flat_map(|e| uses.get(&(e.start, e.end)).into_iter().flatten())
                    .copied()
                    .filter(|&(s, e)| !h.iter().any(|x| x.start <= s && e <= x.end))
                    .collect();
                gate.sort_unstable();
                gate.dedup();
                gate
            })
            .collect();
        removed.add(hunks.iter().flatten().map(|e| (e.start, e.end)));
        out.push(Segment {
            name: Unreferenced.name(),
            hunks,
            gates,
        });
    }
    out
}

/// The segments as one plan (each hunk with its gate) and the names of its passes.
pub fn plan(segments: Vec<Segment>, src: &[u8]) -> (Plan, Vec<&'static str>) {
    let names = segments.iter().map(|s| s.name).collect();
    let mut gates: Vec<HashMap<Range, Vec<Range>>> = Vec::new();
    let layers = segments
        .into_iter()
        .map(|s| {
            // a hunk keeps its first edit through the layering (see `group_by_names`)
            let by_first = s.hunks.iter().zip(s.gates);
            let by_first = by_first.filter(|(h, g)| !h.is_empty() && !g.is_empty());
            gates.push(by_first.map(|(h, g)| ((h[0].start, h[0].end), g)).collect());
            layers_of_hunks(s.hunks, src)
        })
        .collect();
    let plan = Plan::grouped(layers).with_gates(|s, h| {
        let first = (h[0].start, h[0].end);
        gates[s].get(&first).cloned().unwrap_or_default()
    });
    (plan, names)
}

/// Every item, struct field and enum member that declares a name, with the ranges of the
/// other uses of its names (as [`Unreferenced`] counts them: declaring sites are no uses where
/// the table says so).
fn candidates<'s>(tree: &Tree, src: &'s [u8], t: &RewriteTable) -> Vec<Candidate<'s>> {
    let nodes = preorder(tree);
    let items = items(&nodes, t);
    let sites = declaring_sites(&nodes, &items, t);
    let mut at: HashMap<&[u8], Vec<Range>> = HashMap::new();
    for n in nodes.iter().filter(|n| !sites.contains(&n.id())) {
        for name in names_in_node(n, src, t) {
            at.entry(name)
                .or_default()
                .push((n.start_byte() as u32, n.end_byte() as u32));
        }
    }
    let mut out = Vec::new();
    let mut add = |edit: Edit, (start, end): (usize, usize), names: Vec<&'s [u8]>| {
        if names.is_empty() {
            return;
        }
        let mut seen = HashSet::new();
        let uses = names
            .iter()
            .filter(|n| seen.insert(**n))
            .flat_map(|n| at.get(n).into_iter().flatten())
            .copied()
            .filter(|&(s, e)| (s as usize) < start || (e as usize) > end)
            .collect();
        out.push(Candidate { edit, names, uses });
    };
    for &item in &items {
        let range = (item.start_byte(), item.end_byte());
        add(
            Edit::delete_lines(src, range.0, range.1),
            range,
            declared_names(item, src, t),
        );
    }
    let item_ids: HashSet<usize> = items.iter().map(|n| n.id()).collect();
    for n in &nodes {
        let is_item = item_ids.contains(&n.id());
        let range = (n.start_byte(), n.end_byte());
        if n.kind() == t.field_declaration && !is_item {
            add(
                Edit::delete_lines(src, range.0, range.1),
                range,
                declared_names(n, src, t),
            );
        } else if n.kind() == t.enumerator
            && let Some(name) = n.child_by_field_name(t.name_field)
        {
            add(
                super::names::with_separator(n),
                range,
                vec![text(name, src)],
            );
        }
    }
    out
}

/// Disjoint byte ranges, sorted, merged when they touch or overlap.
#[derive(Default)]
struct Ranges(Vec<Range>);

impl Ranges {
    fn add(&mut self, more: impl Iterator<Item = Range>) {
        self.0.extend(more);
        self.0.sort_unstable();
        let mut merged: Vec<Range> = Vec::with_capacity(self.0.len());
        for &(s, e) in &self.0 {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.0 = merged;
    }

    /// Is `s..e` inside one range?
    fn covers(&self, s: u32, e: u32) -> bool {
        let i = self.0.partition_point(|r| r.0 <= s);
        i > 0 && e <= self.0[i - 1].1
    }

    /// Does `s..e` share a byte with a range?
    fn overlaps(&self, s: u32, e: u32) -> bool {
        let i = self.0.partition_point(|r| r.1 <= s);
        self.0.get(i).is_some_and(|r| r.0 < e)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::edits::EditSpace;
    use crate::edits::layers::{Layers, Minimizer};
    use crate::engine::reduce;
    use crate::engine::shuffled::ShuffledOracle;
    use crate::lang::c::C;
    use crate::passes::tests::parse;
    use crate::policy::Unit;

    /// `z` uses `y`, which uses `x`; `w` is used by `main`'s body.
    const CHAIN: &str =
        "int x;\nint *y = &x;\nint **z = &y;\nint w;\nint main(void) { return w; }\n";

    /// A segment as texts: its pass, what each hunk replaces, what each gate covers.
    type Texts = (&'static str, Vec<String>, Vec<Vec<String>>);

    fn listing(src: &str) -> Vec<Texts> {
        let at = |s: u32, e: u32| src[s as usize..e as usize].to_string();
        cascade(&parse(src), src.as_bytes(), &C)
            .into_iter()
            .map(|seg| {
                let hunks = seg.hunks.iter().map(|h| at(h[0].start, h[0].end)).collect();
                let gates = seg.gates.iter();
                let gates = gates.map(|g| g.iter().map(|&(s, e)| at(s, e)).collect());
                (seg.name, hunks, gates.collect())
            })
            .collect()
    }

    #[test]
    fn items_come_in_the_round_after_their_users_with_their_uses_as_gates() {
        let segments = listing(CHAIN);
        let names: Vec<&str> = segments.iter().map(|s| s.0).collect();
        assert_eq!(
            names,
            [
                "unreferenced",
                "definitions-to-declarations",
                "unreferenced",
                "unreferenced"
            ]
        );
        // items on lines of their own go with their line breaks (`Edit::delete_lines`)
        assert_eq!(
            segments[0].1,
            ["int **z = &y;\n", "int main(void) { return w; }\n"]
        );
        assert_eq!(segments[1].1, ["{ return w; }"]);
        // freed by z's deletion and by main's body: gated on those uses
        assert_eq!(segments[2].1, ["int *y = &x;\n", "int w;\n"]);
        assert_eq!(segments[2].2, [vec!["y"], vec!["w"]]);
        assert_eq!(segments[3].1, ["int x;\n"]);
        assert_eq!(segments[3].2, [vec!["x"]]);
    }

    /// The cascade of `src` as one call at `width`, judged by `judge` on the rendered text;
    /// every candidate tested is added to `seen`.
    fn run(
        src: &str,
        width: usize,
        seed: u64,
        judge: impl Fn(&str) -> bool,
    ) -> (String, Vec<String>) {
        let (plan, names) = plan(cascade(&parse(src), src.as_bytes(), &C), src.as_bytes());
        let plan = Rc::new(plan);
        let mut space = EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], plan.hunks.clone());
        let seen = RefCell::new(Vec::new());
        let test = |c: &[Unit]| {
            let text = String::from_utf8(space.render(c)).expect("utf-8");
            let verdict = judge(&text);
            seen.borrow_mut().push(text);
            verdict
        };
        let mut oracle = ShuffledOracle::new(test, width, seed);
        let how = Minimizer {
            one_at_a_time: false,
            coarse: None,
            limit: None,
        };
        let mut policy = Layers::chained(plan, vec![how; names.len()], names);
        let result = reduce(space.all_units(), &mut oracle, &mut policy);
        drop(oracle);
        (
            String::from_utf8(space.render(&result)).expect("utf-8"),
            seen.into_inner(),
        )
    }

    #[test]
    fn a_closed_gate_keeps_an_item_out_of_every_candidate() {
        // z must stay, so y (and x) stay; w is freed once main's body may go
        let (out, seen) = run(CHAIN, 1, 0, |t| t.contains("**z"));
        assert!(
            out.contains("int x;") && out.contains("*y") && out.contains("**z"),
            "{out}"
        );
        assert!(!out.contains("int w;") && !out.contains("return"), "{out}");
        // y was never tried without z's deletion applied
        assert!(
            seen.iter().all(|t| t.contains("*y") || !t.contains("**z")),
            "{seen:?}"
        );
        // and main's body stays when the test needs it, so w stays too
        let (out, _) = run(CHAIN, 1, 0, |t| t.contains("return w"));
        assert!(
            out.contains("int w;") && !out.contains("*y") && !out.contains("int x"),
            "{out}"
        );
    }

    #[test]
    fn one_call_gives_the_same_result_at_every_width() {
        let src = "int a; int b = a; int c = b; struct s { int f; int g; } v;\n\
                   enum e { E1, E2 };\nint h(void) { return c + v.f + E2; }\n\
                   int k(void) { return h(); }\nint main(void) { return k() + b; }\n";
        let mut results = HashSet::new();
        for seed in 0..24u64 {
            let judge = |t: &str| {
                let h = t.bytes().fold(seed, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                t.contains("main") && h % 3 != 0
            };
            let (serial, _) = run(src, 1, seed, judge);
            for width in [2, 5, 16] {
                assert_eq!(
                    run(src, width, seed, judge).0,
                    serial,
                    "seed {seed} -j{width}"
                );
            }
            results.insert(serial);
        }
        // the verdicts vary enough to stop the cascade at many different places
        assert!(results.len() > 8, "{results:?}");
    }
}
