//! Rewrites as edits: a pass lists, from the current text and its tree, edits (a byte range of the
//! text and its replacement; a deletion has an empty one). The edits are the units of the usual
//! loop: "removing unit `i`" means applying edit `i`, so the chunk minimizers apply large batches
//! and narrow down to single edits, and the cache, prefilter and `-j` work unchanged.
//!
//! An [`EditSpace`] holds one layer of pairwise disjoint edits (sorted by start) over a fixed
//! text, plus the edits already committed in earlier layers; it renders any configuration in one
//! pass over the text. [`layers`] splits a pass's (possibly nested) edits into such layers.

pub mod c;
pub mod names;
pub mod oracle;
pub mod smallest;
pub mod windows;

use crate::reduce::Unit;
use crate::tree::render::would_glue;

/// A rewrite pass: lists edits of the current text from its tree. The edits may nest or
/// overlap; the driver splits them into [`layers`] and tries each layer with the usual loop.
pub trait Pass {
    fn name(&self) -> &'static str;

    fn edits(&self, tree: &tree_sitter::Tree, src: &[u8]) -> Vec<Edit>;

    /// Mostly-failing passes test edits one at a time instead of bisecting big batches.
    fn one_at_a_time(&self) -> bool {
        false
    }

    /// Skip candidates that parse worse than the best (when the prefilter is on).
    fn prefilter(&self) -> bool {
        true
    }
}

/// The source text of a node.
pub fn text<'s>(node: tree_sitter::Node, src: &'s [u8]) -> &'s [u8] {
    src.get(node.byte_range()).unwrap_or(b"")
}

/// Every node of the tree in pre-order (iterative: C trees get deep).
pub fn preorder(tree: &tree_sitter::Tree) -> Vec<tree_sitter::Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Replace `text[start..end]` by `with`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    pub start: u32,
    pub end: u32,
    pub with: Box<[u8]>,
}

impl Edit {
    pub fn new(start: usize, end: usize, with: &[u8]) -> Edit {
        Edit {
            start: start as u32,
            end: end as u32,
            with: with.into(),
        }
    }

    pub fn delete(start: usize, end: usize) -> Edit {
        Edit::new(start, end, b"")
    }

    /// Bytes saved when applied (negative: the text grows).
    pub fn saving(&self) -> i64 {
        (self.end - self.start) as i64 - self.with.len() as i64
    }

    fn overlaps(&self, other: &Edit) -> bool {
        // two insertions at one point, or an insertion inside a range, also conflict
        self.start < other.end && other.start < self.end
            || (self.start == other.start && (self.start == self.end || other.start == other.end))
    }
}

/// Splits edits into layers of pairwise disjoint edits, each sorted by start: a greedy scan in
/// (start, longest first, then the pass's) order puts an edit in the first layer where it overlaps nothing, so
/// an outer edit comes before the edits nested in it. Edits that change nothing or do not fit
/// the text are dropped.
pub fn layers(mut edits: Vec<Edit>, src: &[u8]) -> Vec<Vec<Edit>> {
    edits.retain(|e| {
        e.start <= e.end
            && (e.end as usize) <= src.len()
            && *e.with != src[e.start as usize..e.end as usize]
    });
    let mut seen = std::collections::HashSet::new();
    edits.retain(|e| seen.insert(e.clone()));
    // stable: alternatives for one range keep the pass's order (best first)
    edits.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
    let mut out: Vec<Vec<Edit>> = Vec::new();
    for e in edits {
        // layers are sorted by start: only the last edit of each layer can overlap `e`
        match out
            .iter_mut()
            .find(|l| l.last().is_none_or(|last| !last.overlaps(&e)))
        {
            Some(layer) => layer.push(e),
            None => out.push(vec![e]),
        }
    }
    out
}

/// One layer of disjoint edits over a fixed text, with the edits committed before it.
pub struct EditSpace {
    pub src: Vec<u8>,
    /// Applied in every candidate (committed by earlier layers); sorted, disjoint.
    fixed: Vec<Edit>,
    /// This layer's edits, the units: sorted, disjoint from each other and from `fixed`.
    pub edits: Vec<Edit>,
}

impl EditSpace {
    pub fn new(src: Vec<u8>) -> EditSpace {
        EditSpace {
            src,
            fixed: Vec::new(),
            edits: Vec::new(),
        }
    }

    /// Starts a new layer: the edits of `config`'s complement (applied) become fixed, and the
    /// new layer keeps only the edits disjoint from every fixed one (never half-applied).
    pub fn next_layer(&mut self, config: &[Unit], layer: Vec<Edit>) {
        let applied = applied(config, self.edits.len());
        let old = std::mem::take(&mut self.edits);
        self.fixed.extend(applied.map(|i| old[i].clone()));
        self.fixed.sort_by_key(|e| e.start);
        let fixed = &self.fixed;
        self.edits = layer
            .into_iter()
            .filter(|e| {
                let i = fixed.partition_point(|f| f.end <= e.start);
                fixed[i..]
                    .iter()
                    .take_while(|f| f.start <= e.end)
                    .all(|f| !f.overlaps(e))
            })
            .collect();
    }

    /// Every unit of the current layer (nothing applied yet).
    pub fn all_units(&self) -> Vec<Unit> {
        (0..self.edits.len() as Unit).collect()
    }

    /// Has any edit been committed?
    pub fn changed(&self, config: &[Unit]) -> bool {
        !self.fixed.is_empty() || config.len() < self.edits.len()
    }

    /// The text with the fixed edits and every edit of the layer *not* in `config` applied.
    /// Where an edit meets its neighbour and the two would lex as one token, a space goes in.
    pub fn render_into(&self, config: &[Unit], out: &mut Vec<u8>) {
        out.clear();
        let mut kept = config.iter().peekable();
        let mut layer = self.edits.iter().enumerate().filter(|&(i, _)| {
            while kept.next_if(|&&k| (k as usize) < i).is_some() {}
            kept.next_if(|&&k| k as usize == i).is_none()
        });
        let (mut fixed, mut pos, mut seam) = (self.fixed.iter().peekable(), 0usize, false);
        let mut next_layer = layer.next().map(|(_, e)| e);
        loop {
            let edit = match (fixed.peek(), next_layer) {
                (Some(f), Some(l)) if f.start <= l.start => fixed.next(),
                (Some(_), None) => fixed.next(),
                (_, Some(l)) => {
                    next_layer = layer.next().map(|(_, e)| e);
                    Some(l)
                }
                (None, None) => None,
            };
            let Some(edit) = edit else { break };
            let (start, end) = (edit.start as usize, edit.end as usize);
            push(out, &self.src[pos.min(start)..start], &mut seam);
            seam = true;
            push(out, &edit.with, &mut seam);
            seam = true;
            pos = pos.max(end);
        }
        push(out, &self.src[pos.min(self.src.len())..], &mut seam);
    }

    pub fn render(&self, config: &[Unit]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(config, &mut out);
        out
    }
}

/// Appends `chunk`; right after an edit (`seam`), first a space if the two sides would glue.
fn push(out: &mut Vec<u8>, chunk: &[u8], seam: &mut bool) {
    if chunk.is_empty() {
        return;
    }
    if *seam && would_glue(out, chunk) {
        out.push(b' ');
    }
    *seam = false;
    out.extend_from_slice(chunk);
}

/// The indices in `0..n` missing from the sorted `config`.
fn applied(config: &[Unit], n: usize) -> impl Iterator<Item = usize> + '_ {
    let mut kept = config.iter().peekable();
    (0..n).filter(move |&i| {
        while kept.next_if(|&&k| (k as usize) < i).is_some() {}
        kept.next_if(|&&k| k as usize == i).is_none()
    })
}

#[cfg(test)]
mod tests;
