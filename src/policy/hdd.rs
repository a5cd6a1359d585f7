//! HDD (`seeds/001`): walk the tree level by level; at each level a fresh inner minimizer (ddmin)
//! deletes the level's deletable present nodes, persisting across the level's passes; descend when
//! it is minimal. Deletable means an element of a List/Opt/Error node, or any non-root node when
//! `any_node` is set (the spec's "Delete Anything?" experiment).

use super::{Deltas, Policy, Unit};
use crate::tree::{Arena, NodeId, View};

pub struct Hdd<'t, F, P> {
    arena: &'t Arena,
    new_minimizer: F,
    level: u32,
    minimizer: Option<P>,
    /// This level's present deletable nodes, a field so the returned iterator can borrow it.
    level_nodes: Vec<NodeId>,
    any_node: bool,
    /// For each delta proposed this pass, the index of the inner minimizer's candidate.
    pulled: std::rc::Rc<std::cell::RefCell<Vec<usize>>>,
}

impl<'t, F, P> Hdd<'t, F, P>
where
    F: FnMut() -> P,
    P: Policy,
{
    pub fn new(arena: &'t Arena, new_minimizer: F) -> Self {
        Hdd {
            arena,
            new_minimizer,
            level: 0,
            minimizer: None,
            level_nodes: Vec::new(),
            any_node: false,
            pulled: Default::default(),
        }
    }

    /// Lift the List-only restriction: every node but the root becomes deletable.
    pub fn any_node(mut self, yes: bool) -> Self {
        self.any_node = yes;
        self
    }

    /// The level's present candidates, sorted by id.
    fn alive_level_nodes(&self, config: &[Unit]) -> Vec<NodeId> {
        let arena = self.arena;
        let Some(nodes) = arena.level(self.level) else {
            return Vec::new();
        };
        nodes
            .iter()
            .copied()
            .filter(|&n| {
                let ok = if self.any_node {
                    n != arena.root
                } else {
                    arena.deletable(n)
                };
                ok && arena.present_in(n, config)
            })
            .collect()
    }
}

/// A deep copy: the clone gets its own minimizer and log.
impl<F: Clone, P: Clone> Clone for Hdd<'_, F, P> {
    fn clone(&self) -> Self {
        Hdd {
            arena: self.arena,
            new_minimizer: self.new_minimizer.clone(),
            level: self.level,
            minimizer: self.minimizer.clone(),
            level_nodes: self.level_nodes.clone(),
            any_node: self.any_node,
            pulled: std::rc::Rc::new(std::cell::RefCell::new(self.pulled.borrow().clone())),
        }
    }
}

impl<F, P> Policy for Hdd<'_, F, P>
where
    F: FnMut() -> P + Clone,
    P: Policy + Clone,
{
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> Deltas<'a> {
        if self.minimizer.is_none() {
            self.minimizer = Some((self.new_minimizer)());
        }
        let view = View::new(self.arena, config);
        self.level_nodes = self.alive_level_nodes(config);
        let minimizer = self.minimizer.as_mut().expect("built above");
        self.pulled.borrow_mut().clear();
        let pulled = self.pulled.clone();
        Box::new(
            minimizer
                .propose(&self.level_nodes)
                .enumerate()
                .map(move |(j, drop)| (j, view.deletion_delta(config, &drop)))
                .filter(|(_, delta)| !delta.is_empty())
                .map(move |(j, delta)| {
                    pulled.borrow_mut().push(j);
                    delta
                }),
        )
    }

    fn on_reduced(&mut self, reduced: Option<&[Unit]>) -> bool {
        let nodes = reduced.map(|c| self.alive_level_nodes(c));
        let inner = self.minimizer.as_mut().expect("propose ran first");
        if inner.on_reduced(nodes.as_deref()) {
            return true;
        }
        self.level += 1;
        self.minimizer = None;
        self.level <= self.arena.max_depth()
    }

    fn phase(&self) -> String {
        format!("hdd level {}/{}", self.level, self.arena.max_depth())
    }

    fn accepted(&mut self, index: usize) {
        let inner_index = self.pulled.borrow().get(index).copied();
        if let (Some(j), Some(inner)) = (inner_index, self.minimizer.as_mut()) {
            inner.accepted(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FnOracle, reduce};
    use crate::policy::ddmin::Ddmin;
    use crate::tree::toy::{example_tree, parses};

    fn run_hdd(any_node: bool) -> (String, u32) {
        let tree = example_tree();
        let crash = tree.token("crash");
        let mut calls = 0;
        let mut oracle = FnOracle(|c: &[Unit]| {
            calls += 1;
            c.contains(&crash) && parses(&tree.render(c))
        });
        let mut hdd = Hdd::new(&tree.arena, || Ddmin).any_node(any_node);
        let result = reduce(tree.all_units(), &mut oracle, &mut hdd);
        (tree.render(&result), calls)
    }

    #[test]
    fn hdd_keeps_the_if_nest_in_exactly_9_oracle_calls() {
        let (program, calls) = run_hdd(false);
        assert_eq!(
            program,
            "int main ( ) { if ( c1 ) { if ( c2 ) { if ( c3 ) { crash ( ) ; } } } }"
        );
        assert_eq!(calls, 9);
    }

    #[test]
    fn hdd_deleting_any_node_reaches_the_perses_result_in_105_calls() {
        let (program, calls) = run_hdd(true);
        assert_eq!(program, "int main ( ) { crash ( ) ; }");
        assert_eq!(calls, 105);
    }
}
