//! Tests of Perses: the specification's examples and pass table.

use super::*;
use crate::engine::{FnOracle, reduce};
use crate::policy::Verdict;
use crate::policy::ddmin::Ddmin;
use crate::tree::toy::{Kind, example_tree, parses, promotion_tree};

#[test]
fn perses_collapses_the_if_nest_in_exactly_3_oracle_calls() {
    let tree = example_tree();
    let crash = tree.token("crash");
    let mut calls = 0;
    let mut oracle = FnOracle(|c: &[Unit]| {
        calls += 1;
        c.contains(&crash) && parses(&tree.render(c))
    });
    let mut perses = Perses::new(&tree.arena, || Ddmin);
    let result = reduce(tree.all_units(), &mut oracle, &mut perses);
    assert_eq!(tree.render(&result), "int main ( ) { crash ( ) ; }");
    assert_eq!(calls, 3);
}

/// The spec's pass-by-pass table: which list is active, what is accepted, what `done` holds.
#[test]
fn perses_follows_the_specs_pass_table() {
    let tree = example_tree();
    let arena = &tree.arena;
    let crash = tree.token("crash");
    let lists: Vec<NodeId> = (0..arena.len() as NodeId)
        .filter(|&n| arena.node(n).kind() == Kind::List as u16)
        .collect();
    let (innermost, outermost) = (lists[0], lists[3]);
    let mut perses = Perses::new(arena, || Ddmin);
    let mut config = tree.all_units();
    let mut rows = Vec::new();
    for _ in 0..4 {
        let mut accepted = None;
        for delta in perses.propose(&config) {
            let candidate = crate::policy::subtract(&config, &delta);
            let ok = candidate.contains(&crash) && parses(&tree.render(&candidate));
            if Verdict::from_bool(ok) == Verdict::Interesting {
                accepted = Some(candidate);
                break;
            }
        }
        let active = perses.active();
        let go = perses.on_reduced(accepted.as_deref());
        let text = accepted.as_ref().map(|c| tree.render(c));
        let mut done: Vec<NodeId> = perses.done().iter().copied().collect();
        done.sort();
        rows.push((active, text, done));
        if let Some(c) = accepted {
            config = c;
        }
        if !go {
            break;
        }
    }
    let main_crash_noise = "int main ( ) { crash ( ) ; noise ( ) ; }".to_string();
    let main_crash = "int main ( ) { crash ( ) ; }".to_string();
    assert_eq!(
        rows,
        vec![
            (Some(outermost), Some(main_crash_noise), vec![]),
            (Some(innermost), Some(main_crash), vec![]),
            (Some(innermost), None, vec![innermost]),
            (None, None, vec![innermost]),
        ]
    );
}

/// 40 nested `if`s: more compatible descendants than one node may try at once, so the
/// innermost `crash ( ) ;` is reached in steps, and still reached.
#[test]
fn a_deep_nest_still_collapses_through_the_nearest_replacements() {
    let mut b = crate::tree::toy::Builder::default();
    let crash = b.call("crash");
    let mut stmt = crash;
    for _ in 0..40 {
        let list = b.list(vec![stmt]);
        let block = b.block(list);
        stmt = b.if_stmt("c", block);
    }
    let list = b.list(vec![stmt]);
    let body = b.block(list);
    let root = b.func(body);
    let tree = b.finish(root);
    let crash = tree.token("crash");
    let mut oracle = FnOracle(|c: &[Unit]| c.contains(&crash) && parses(&tree.render(c)));
    let mut perses = Perses::new(&tree.arena, || Ddmin);
    let result = reduce(tree.all_units(), &mut oracle, &mut perses);
    assert_eq!(tree.render(&result), "int main ( ) { crash ( ) ; }");
}

#[test]
fn liveness_and_anchor_match_the_specs_promotion_picture() {
    let tree = promotion_tree();
    let arena = &tree.arena;
    // keep `int main ( )` and the inner block `{ crash ( ) ; }`
    let keep: Vec<Unit> = vec![0, 1, 2, 3, 9, 10, 11, 12, 13, 14];
    assert_eq!(tree.render(&keep), "int main ( ) { crash ( ) ; }");
    let view = View::new(arena, &keep);
    let of_kind = |k: Kind| -> Vec<NodeId> {
        (0..arena.len() as NodeId)
            .filter(|&n| arena.node(n).kind() == k as u16)
            .collect()
    };
    let blocks = of_kind(Kind::Block); // [inner, outer] in creation order
    let (inner, outer) = (blocks[0], blocks[1]);
    let if_stmt = of_kind(Kind::IfStmt)[0];
    let expr = of_kind(Kind::Expr)[0];
    let lists = of_kind(Kind::List);
    let outer_list = lists[1];
    // the `?` nodes: present but not live
    for n in [outer, outer_list, if_stmt, expr] {
        assert_eq!(
            (view.present(n), view.live(n)),
            (n != expr, false),
            "node {n}"
        );
    }
    assert!(view.live(inner));
    // by the spec's `live` the root is dead too (its body block is); `anchor_of` stops at it anyway
    assert!(!view.live(arena.root));
    assert_eq!(view.anchor_of(inner), outer);
    assert!(!view.can_replace(inner, if_stmt));
}

/// One round of Perses with a recall of `failed` keys: result, oracle calls, keys learned.
fn recall_round(
    tree: &crate::tree::toy::ToyTree,
    failed: std::collections::HashSet<u64>,
    judge: &dyn Fn(&[Unit]) -> bool,
) -> (Vec<Unit>, usize, Vec<u64>) {
    let tokens = tree.tokens();
    let recall = Rc::new(Recall::new(&tokens, failed));
    let mut perses = Perses::new(&tree.arena, || Ddmin).recall(recall);
    let mut calls = 0;
    let mut oracle = FnOracle(|c: &[Unit]| {
        calls += 1;
        judge(c)
    });
    let result = reduce(tree.all_units(), &mut oracle, &mut perses);
    (result, calls, perses.failed_keys())
}

#[test]
fn a_round_skips_the_replacements_that_failed_in_an_earlier_round() {
    let tree = example_tree();
    let nothing = |_: &[Unit]| false;
    let (_, first, learned) = recall_round(&tree, Default::default(), &nothing);
    assert!(!learned.is_empty());
    let failed: std::collections::HashSet<u64> = learned.iter().copied().collect();
    let (_, second, again) = recall_round(&tree, failed.clone(), &nothing);
    assert!(second < first, "{second} calls, {first} without the recall");
    assert!(
        again.is_empty(),
        "every replacement failed before: none is proposed"
    );
    // what the skipped replacements would give only a round that skips nothing finds (the
    // driver's last check): a first round where every replacement of an `if` fails
    let crash = tree.token("crash");
    let works = |c: &[Unit]| c.contains(&crash) && parses(&tree.render(c));
    let ifs = |c: &[Unit]| tree.render(c).matches("if").count() == 3;
    let (_, _, learned) = recall_round(&tree, Default::default(), &|c| works(c) && ifs(c));
    let failed: std::collections::HashSet<u64> = learned.into_iter().collect();
    let (skipping, ..) = recall_round(&tree, failed, &works);
    let (full, ..) = recall_round(&tree, Default::default(), &works);
    assert_eq!(tree.render(&full), "int main ( ) { crash ( ) ; }");
    assert!(skipping.len() > full.len(), "{}", tree.render(&skipping));
}
