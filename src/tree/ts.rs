//! The tree-sitter bridge: parse once, copy into an owned [`Arena`] with synthetic List/Opt nodes
//! (derived from the grammar's slot tables), then drop the tree-sitter tree. Iterative throughout:
//! C trees get deep (else-if chains, long `a+b+c` chains).

use anyhow::{Context, Result};
use tree_sitter::{Parser, Tree};

use super::grammar::Grammar;
use super::render::{TokenRules, Tokens};
pub use super::reparse::{Reparse, count_errors, parse_tree};
use super::{Arena, Class, NONE, Node, NodeId};

/// A parsed input: the arena, the tokens' byte spans, and how many ERROR/MISSING nodes it had.
pub struct Parsed {
    pub arena: Arena,
    pub tokens: Tokens,
    pub errors: usize,
    /// Byte offset of the first error, if any.
    pub first_error: Option<usize>,
}

/// The one place a tree-sitter parser is made.
pub fn new_parser(grammar: &Grammar) -> Result<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&grammar.language).with_context(|| {
        format!(
            "the {} grammar does not load into this tree-sitter (ABI version mismatch?)",
            grammar.name
        )
    })?;
    Ok(parser)
}

/// Parses `src` and builds its arena.
pub fn build(grammar: &Grammar, parser: &mut Parser, src: &[u8]) -> Result<Parsed> {
    Ok(build_tree(grammar, &parse_tree(parser, src)?, src))
}

/// Builds the arena of `src` from its tree-sitter `tree`.
pub fn build_tree(grammar: &Grammar, tree: &Tree, src: &[u8]) -> Parsed {
    let (errors, first_error) = count_errors(tree);
    let raw = RawTree::copy(tree, grammar);
    let seps = derive_separators(grammar, &raw);
    let (arena, spans) = Builder::new(grammar, &raw, &seps).run();
    let rules = token_rules(grammar, &raw, &arena, &spans);
    Parsed {
        arena,
        tokens: Tokens::new(src.to_vec(), spans).with_rules(rules),
        errors,
        first_error,
    }
}

/// The anonymous token kinds that separate list elements in this tree: a token that sits alone
/// between two elements of the same `multiple` slot (`,` in `f(a, b)`, `;` between Python
/// statements, a newline between Go statements). Derived, so no language lists them.
fn derive_separators(g: &Grammar, raw: &RawTree) -> Vec<bool> {
    let mut seps = vec![false; g.kind_names.len()];
    let elem = |n: &Raw, field: u16| n.named && !n.extra && !n.error && n.field == field;
    for (p, kids) in raw.kids.iter().enumerate() {
        let parent = raw.nodes[p];
        if parent.error || g.is_not_list(parent.kind) {
            continue;
        }
        let kids: Vec<&Raw> = kids
            .iter()
            .map(|&k| &raw.nodes[k as usize])
            .filter(|n| !n.extra && !n.missing)
            .collect();
        for w in kids.windows(3) {
            let (a, t, b) = (w[0], w[1], w[2]);
            let leaf_token = !t.named && !t.error && t.start < t.end;
            if !leaf_token
                || !elem(a, a.field)
                || !elem(b, a.field)
                || t.field == a.field && t.field != 0
            {
                continue;
            }
            let multiple = g.slot(parent.kind, a.field).is_some_and(|s| s.multiple);
            let name = g.kind_names.get(t.kind as usize).map_or("", String::as_str);
            let attached = a.field == 0 && g.overrides.attach_to_previous.contains(&name);
            if multiple && !attached {
                seps[t.kind as usize] = true;
            }
        }
    }
    seps
}

/// The renderer's per-language rules, with the tokens that open an indented block (the
/// language's `empty_block` kind) and the comment tokens flagged.
fn token_rules(g: &Grammar, raw: &RawTree, arena: &Arena, spans: &[(u32, u32)]) -> TokenRules {
    let render = g.spec.render;
    let mut rules = TokenRules {
        word_chars: render.word_chars,
        ..TokenRules::default()
    };
    let Some(block) = render.empty_block else {
        return rules;
    };
    let block = g.language.id_for_node_kind(block.kind, true);
    let comment = |t: usize| g.is_comment(arena.node(arena.tok_leaf[t]).kind);
    let mut flags: Vec<u8> = (0..spans.len())
        .map(|t| if comment(t) { TokenRules::COMMENT } else { 0 })
        .collect();
    let mut headers = Vec::new();
    for (p, kids) in raw.kids.iter().enumerate() {
        for n in kids.iter().map(|&k| &raw.nodes[k as usize]) {
            if n.kind != block || n.error {
                continue;
            }
            let mut t = spans.partition_point(|s| s.1 <= n.start);
            while t > 0 && flags[t - 1] & TokenRules::COMMENT != 0 {
                t -= 1;
            }
            if t > 0 {
                flags[t - 1] |= TokenRules::OPENER;
                // the statement's start; an error region's may be far above: the `:`'s line
                if !raw.nodes[p].error {
                    headers.push(((t - 1) as u32, raw.nodes[p].start));
                }
            }
        }
    }
    headers.sort_unstable();
    headers.dedup_by_key(|h| h.0);
    rules.flags = flags;
    rules.headers = headers;
    rules.filler = render.empty_block.map_or(b"", |b| b.filler.as_bytes());
    rules.indent_sensitive = true;
    rules
}

/// A plain copy of the tree-sitter tree (atomic kinds cut off at the top).
struct RawTree {
    nodes: Vec<Raw>,
    kids: Vec<Vec<u32>>,
}

#[derive(Clone, Copy)]
struct Raw {
    kind: u16,
    named: bool,
    extra: bool,
    error: bool,
    missing: bool,
    field: u16,
    start: u32,
    end: u32,
}

impl RawTree {
    fn copy(tree: &Tree, g: &Grammar) -> RawTree {
        let mut raw = RawTree {
            nodes: Vec::new(),
            kids: Vec::new(),
        };
        let mut cursor = tree.walk();
        let mut stack: Vec<u32> = Vec::new();
        loop {
            let node = cursor.node();
            let id = raw.nodes.len() as u32;
            raw.nodes.push(Raw {
                kind: if node.is_error() {
                    g.kind_error
                } else {
                    node.kind_id()
                },
                named: node.is_named(),
                extra: node.is_extra(),
                error: node.is_error(),
                missing: node.is_missing(),
                field: known_field(g, &raw, stack.last(), cursor.field_id()),
                start: node.start_byte() as u32,
                end: node.end_byte() as u32,
            });
            raw.kids.push(Vec::new());
            if let Some(&p) = stack.last() {
                raw.kids[p as usize].push(id);
            }
            if !g.is_atomic(node.kind_id()) && cursor.goto_first_child() {
                stack.push(id);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return raw;
                }
                stack.pop();
            }
        }
    }

    fn is_leaf(&self, id: u32) -> bool {
        self.kids[id as usize].is_empty()
    }
}

/// The child's field, or 0 (the unnamed children) when `NODE_TYPES` does not list that field for
/// the parent: tree-sitter-lua's statements carry fields (`local_declaration`) set inside
/// hidden rules, which node-types drops; they are still elements of the chunk's statement list.
fn known_field(
    g: &Grammar,
    raw: &RawTree,
    parent: Option<&u32>,
    field: Option<std::num::NonZeroU16>,
) -> u16 {
    let (Some(&p), Some(f)) = (parent, field) else {
        return 0;
    };
    let kind = raw.nodes[p as usize].kind;
    if g.slot(kind, f.get()).is_some() {
        f.get()
    } else {
        0
    }
}

/// Builds the arena top-down from the raw copy.
struct Builder<'g> {
    g: &'g Grammar,
    raw: &'g RawTree,
    /// Derived separator kinds (by kind id).
    seps: &'g [bool],
    arena: Arena,
    /// Byte span of each arena leaf (by arena id).
    span: Vec<(u32, u32)>,
    /// Raw nodes still to expand, with their arena node.
    work: Vec<(u32, NodeId)>,
}

impl<'g> Builder<'g> {
    fn new(g: &'g Grammar, raw: &'g RawTree, seps: &'g [bool]) -> Self {
        Builder {
            g,
            raw,
            seps,
            arena: Arena {
                kind_names: g.kind_names.clone(),
                type_sets: g.type_sets.clone(),
                ..Arena::default()
            },
            span: Vec::new(),
            work: Vec::new(),
        }
    }

    fn run(mut self) -> (Arena, Vec<(u32, u32)>) {
        let root = self.convert(0, NONE, NONE);
        self.arena.root = root;
        while let Some((r, a)) = self.work.pop() {
            let kids = self.expand(r, a);
            self.set_children(a, &kids);
        }
        renumber_preorder(self.arena, &self.span)
    }

    fn push(&mut self, class: Class, kind: u16, slot: u32, parent: NodeId) -> NodeId {
        let id = self.arena.nodes.len() as NodeId;
        self.arena.nodes.push(Node {
            class,
            kind,
            slot,
            parent,
            children: (0, 0),
            toks: (0, 0),
            depth: 0,
        });
        self.span.push((0, 0));
        id
    }

    fn set_children(&mut self, id: NodeId, kids: &[NodeId]) {
        let start = self.arena.child_ids.len() as u32;
        self.arena.child_ids.extend_from_slice(kids);
        for &k in kids {
            self.arena.nodes[k as usize].parent = id;
        }
        self.arena.nodes[id as usize].children = (start, self.arena.child_ids.len() as u32);
    }

    /// Makes the arena node for raw node `r` in a slot admitting `slot`; queues its expansion.
    fn convert(&mut self, r: u32, slot: u32, parent: NodeId) -> NodeId {
        let n = self.raw.nodes[r as usize];
        if self.raw.is_leaf(r) {
            let id = self.push(Class::Token, n.kind, slot, parent);
            self.span[id as usize] = (n.start, n.end);
            return id;
        }
        let class = if n.error {
            Class::Error
        } else {
            Class::Regular
        };
        let id = self.push(class, n.kind, slot, parent);
        self.work.push((r, id));
        id
    }

    /// Skipped entirely: MISSING leaves and other zero-width leaves have no bytes.
    fn skip(&self, r: u32) -> bool {
        let n = &self.raw.nodes[r as usize];
        n.missing || (n.start == n.end && self.raw.is_leaf(r))
    }

    /// The arena children of raw node `r` (whose arena node is `a`).
    fn expand(&mut self, r: u32, a: NodeId) -> Vec<NodeId> {
        let kids: Vec<u32> = self.raw.kids[r as usize]
            .iter()
            .copied()
            .filter(|&k| !self.skip(k))
            .collect();
        let parent = self.raw.nodes[r as usize];
        let mut out = Vec::new();
        let mut i = 0;
        while i < kids.len() {
            let k = kids[i];
            let n = self.raw.nodes[k as usize];
            let slot = self.g.slot(parent.kind, n.field);
            if parent.error {
                out.push(self.convert(k, NONE, a));
            } else if n.extra {
                out.push(self.wrap(Class::Opt, NONE, a, &[k]));
            } else if n.error || !n.named {
                out.push(self.convert(k, NONE, a));
            } else if let Some(s) = slot.filter(|s| s.multiple && !self.g.is_not_list(parent.kind))
            {
                let end = self.run_end(&kids, i);
                out.push(self.list(&kids[i..end], s.types, a, n.field == 0));
                i = end;
                continue;
            } else if let Some(s) = slot.filter(|s| !s.required && !s.multiple) {
                out.push(self.wrap(Class::Opt, s.types, a, &[k]));
            } else {
                out.push(self.convert(k, slot.map_or(NONE, |s| s.types), a));
            }
            i += 1;
        }
        out
    }

    /// A List/Opt wrapper around raw nodes `rs`, each converted into the wrapper's slot.
    fn wrap(&mut self, class: Class, slot: u32, parent: NodeId, rs: &[u32]) -> NodeId {
        let kind = if class == Class::Opt {
            self.g.kind_opt
        } else {
            self.g.kind_list
        };
        let w = self.push(class, kind, slot, parent);
        let kids: Vec<NodeId> = rs.iter().map(|&k| self.convert(k, slot, w)).collect();
        self.set_children(w, &kids);
        w
    }

    /// Where the list run starting at `kids[i]` ends: same-field elements, separators between
    /// them (and one trailing), comments, ERROR regions and attached tokens.
    fn run_end(&self, kids: &[u32], i: usize) -> usize {
        let field = self.raw.nodes[kids[i] as usize].field;
        let mut end = i + 1;
        let mut j = i + 1;
        while j < kids.len() {
            let n = self.raw.nodes[kids[j] as usize];
            let element = n.named && !n.extra && !n.error && n.field == field;
            let filler = n.extra || n.error || self.is_sep(n) || self.attaches(n, field);
            if !element && !filler {
                break;
            }
            end = j + 1;
            j += 1;
        }
        end
    }

    fn is_sep(&self, n: Raw) -> bool {
        !n.named && self.seps.get(n.kind as usize).copied().unwrap_or(false)
    }

    /// `;` after an unnamed-children element (`struct S;` in a block) belongs to that element.
    fn attaches(&self, n: Raw, field: u16) -> bool {
        field == 0
            && !n.named
            && self
                .g
                .overrides
                .attach_to_previous
                .contains(&self.name(n.kind))
    }

    fn name(&self, kind: u16) -> &str {
        self.g
            .kind_names
            .get(kind as usize)
            .map_or("", String::as_str)
    }

    /// Builds a List node over a run of raw children.
    fn list(&mut self, run: &[u32], slot: u32, parent: NodeId, unnamed: bool) -> NodeId {
        let l = self.push(Class::List, self.g.kind_list, slot, parent);
        let mut kids: Vec<NodeId> = Vec::new();
        for &k in run {
            let n = self.raw.nodes[k as usize];
            if unnamed && self.attaches(n, 0) && !kids.is_empty() {
                let prev = kids.pop().expect("checked");
                kids.push(self.group(prev, k, slot, l));
            } else if self.is_sep(n) {
                let id = self.push(Class::Sep, n.kind, NONE, l);
                self.span[id as usize] = (n.start, n.end);
                kids.push(id);
            } else if n.extra {
                kids.push(self.convert(k, NONE, l));
            } else {
                kids.push(self.convert(k, slot, l));
            }
        }
        self.set_children(l, &kids);
        l
    }

    /// A synthetic regular node holding an element and the token attached to it.
    fn group(&mut self, elem: NodeId, tok: u32, slot: u32, parent: NodeId) -> NodeId {
        let kind = self.arena.nodes[elem as usize].kind;
        let g = self.push(Class::Regular, kind, slot, parent);
        let t = self.convert(tok, NONE, g);
        self.set_children(g, &[elem, t]);
        g
    }
}

/// Renumbers the arena so that ids are pre-order (source order), then finishes it. Returns the
/// arena and the byte span of each token.
pub(super) fn renumber_preorder(mut arena: Arena, span: &[(u32, u32)]) -> (Arena, Vec<(u32, u32)>) {
    arena.finish();
    let mut new_id = vec![NONE; arena.nodes.len()];
    for (i, &old) in arena.preorder.iter().enumerate() {
        new_id[old as usize] = i as NodeId;
    }
    let mut out = Arena {
        root: new_id[arena.root as usize],
        kind_names: std::mem::take(&mut arena.kind_names),
        type_sets: std::mem::take(&mut arena.type_sets),
        ..Arena::default()
    };
    for &old in &arena.preorder {
        let n = arena.node(old);
        let start = out.child_ids.len() as u32;
        out.child_ids
            .extend(arena.children(old).iter().map(|&c| new_id[c as usize]));
        out.nodes.push(Node {
            parent: if n.parent == NONE {
                NONE
            } else {
                new_id[n.parent as usize]
            },
            children: (start, out.child_ids.len() as u32),
            ..n.clone()
        });
    }
    out.finish();
    let spans = arena
        .tok_leaf
        .iter()
        .map(|&leaf| span[leaf as usize])
        .collect();
    (out, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str = "#include <stdio.h>\n#define N 10\n/* pad */\nstruct point { int x, y; };\nstatic int f(int a, char *b) { return a; }\nint main(void) {\n  int v[] = {1, 2, 3,};\n  for (int i = 0; i < N; i++) { if (i) f(i, 0); else { struct S; } }\n  return \"s\"[0] + 'c';\n}\n";

    fn parsed(src: &str) -> Parsed {
        let g = Grammar::new(&crate::lang::c::SPEC).unwrap();
        let mut p = new_parser(&g).unwrap();
        build(&g, &mut p, src.as_bytes()).unwrap()
    }

    #[test]
    fn rendering_every_token_round_trips_the_input() {
        let p = parsed(SAMPLE);
        let all: Vec<u32> = (0..p.tokens.len() as u32).collect();
        assert_eq!(String::from_utf8(p.tokens.render(&all)).unwrap(), SAMPLE);
        assert_eq!(p.errors, 0);
    }

    #[test]
    fn ids_are_preorder_and_ranges_nest() {
        let p = parsed(SAMPLE);
        let a = &p.arena;
        assert_eq!(a.preorder, (0..a.nodes.len() as u32).collect::<Vec<_>>());
        for id in 0..a.nodes.len() as u32 {
            let n = a.node(id);
            for &c in a.children(id) {
                let k = a.node(c);
                assert!(n.toks.0 <= k.toks.0 && k.toks.1 <= n.toks.1);
                assert_eq!(k.parent, id);
            }
        }
    }

    #[test]
    fn lists_options_and_separators_are_derived() {
        let p = parsed("int f(int a, int b) { g(1, 2); if (a) b; else a; }\n");
        let t = &p.tokens;
        let dump = p
            .arena
            .dump(&|i| String::from_utf8_lossy(t.text(i)).into_owned());
        assert!(dump.contains("sep \",\""), "{dump}");
        assert!(dump.contains("[Opt]"), "{dump}");
        let lists = p
            .arena
            .nodes
            .iter()
            .filter(|n| n.class == Class::List)
            .count();
        assert!(lists >= 4, "{dump}");
    }

    #[test]
    fn deleting_a_list_element_takes_the_right_comma() {
        let p = parsed("void f() { g(1, 2, 3); }\n");
        let all: Vec<u32> = (0..p.tokens.len() as u32).collect();
        let view = super::super::View::new(&p.arena, &all);
        let text = |c: &[u32]| String::from_utf8(p.tokens.render(c)).unwrap();
        let args: Vec<NodeId> = (0..p.arena.nodes.len() as NodeId)
            .filter(|&n| {
                p.arena.deletable(n) && p.arena.node(n).class == Class::Token && {
                    let s = p.tokens.text(p.arena.node(n).toks.0);
                    s == b"1" || s == b"2" || s == b"3"
                }
            })
            .collect();
        assert_eq!(args.len(), 3);
        for (drop, want) in [
            (vec![args[0]], "void f() { g(2, 3); }\n"),
            (vec![args[1]], "void f() { g(1, 3); }\n"),
            (vec![args[2]], "void f() { g(1, 2); }\n"),
            (vec![args[0], args[1]], "void f() { g(3); }\n"),
            (args.clone(), "void f() { g(); }\n"),
        ] {
            let delta = view.deletion_delta(&all, &drop);
            let kept = crate::policy::subtract(&all, &delta);
            let got = text(&kept);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_root_that_is_an_error_region_is_live_and_its_items_deletable() {
        // found by reducing the first 2000 bytes of sqlite3.c (whose whole parse is an ERROR
        // region) with "the root is ERROR" as the test: tree-sitter-c gives up on this line
        let p = parsed("****************\n");
        let root = p.arena.root;
        assert_eq!(p.arena.node(root).class, Class::Error);
        let all: Vec<u32> = (0..p.tokens.len() as u32).collect();
        let view = super::super::View::new(&p.arena, &all);
        assert!(view.live(root));
        assert!(view.elems_of(root).len() >= 2);
    }

    #[test]
    fn parse_errors_are_counted() {
        let p = parsed("int main() { int x = ; }\n");
        assert!(p.errors > 0);
        let all: Vec<u32> = (0..p.tokens.len() as u32).collect();
        assert_eq!(p.tokens.render(&all), b"int main() { int x = ; }\n");
    }
}
