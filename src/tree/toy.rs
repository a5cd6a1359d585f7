//! The specification's hand-built toy grammar (`seeds/001`), producing the same [`Arena`] as the
//! tree-sitter builder, so the spec's vectors (HDD 9 calls, Perses 3, delete-anything 105) run on
//! the real policies. Node ids follow the spec's builder: creation order.
//!
//! ```text
//! func    ::= "int" "main" "(" ")" block
//! block   ::= "{" stmt* "}"
//! stmt    ::= if_stmt | block | call
//! if_stmt ::= "if" "(" expr ")" block
//! call    ::= ident "(" ")" ";"
//! expr    ::= ident
//! ```

use super::Unit;
use super::{Arena, Class, NONE, NodeId};

/// The toy grammar's kinds, as kind ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Kind {
    Token = 0,
    List = 1,
    Expr = 2,
    Func = 3,
    IfStmt = 4,
    Block = 5,
    Call = 6,
}

const KIND_NAMES: [&str; 7] = ["token", "stmt*", "expr", "func", "if_stmt", "block", "call"];

/// Type set ids: one singleton set per kind (a fixed slot admits exactly its kind), then `stmt`.
const STMT_SET: u32 = 7;

/// A toy tree: the arena plus each token's text.
pub struct ToyTree {
    pub arena: Arena,
    pub labels: Vec<&'static str>,
}

impl ToyTree {
    /// Space-joined surviving tokens, as the spec renders.
    pub fn render(&self, config: &[Unit]) -> String {
        config
            .iter()
            .map(|&u| self.labels[u as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The token whose text is `label` (first occurrence).
    pub fn token(&self, label: &str) -> Unit {
        self.labels
            .iter()
            .position(|&l| l == label)
            .expect("no such token") as Unit
    }

    pub fn all_units(&self) -> Vec<Unit> {
        (0..self.labels.len() as Unit).collect()
    }

    /// The labels as the token texts of a source, one space apart.
    pub fn tokens(&self) -> crate::tree::render::Tokens {
        crate::tree::render::Tokens::from_words(&self.labels)
    }
}

/// Builds toy trees top-down in the spec's creation order.
#[derive(Default)]
pub struct Builder {
    kinds: Vec<Kind>,
    node_labels: Vec<&'static str>,
    kids: Vec<Vec<NodeId>>,
}

impl Builder {
    fn add(&mut self, kind: Kind, label: &'static str, children: Vec<NodeId>) -> NodeId {
        self.kinds.push(kind);
        self.node_labels.push(label);
        self.kids.push(children);
        (self.kinds.len() - 1) as NodeId
    }

    pub fn tok(&mut self, s: &'static str) -> NodeId {
        self.add(Kind::Token, s, vec![])
    }

    /// `name ( ) ;`
    pub fn call(&mut self, name: &'static str) -> NodeId {
        let kids = vec![self.tok(name), self.tok("("), self.tok(")"), self.tok(";")];
        self.add(Kind::Call, "", kids)
    }

    pub fn list(&mut self, elems: Vec<NodeId>) -> NodeId {
        self.add(Kind::List, "", elems)
    }

    /// `{ stmts }`
    pub fn block(&mut self, list: NodeId) -> NodeId {
        let lb = self.tok("{");
        let rb = self.tok("}");
        self.add(Kind::Block, "", vec![lb, list, rb])
    }

    /// `if ( cond ) body`
    pub fn if_stmt(&mut self, cond: &'static str, body: NodeId) -> NodeId {
        let kw = self.tok("if");
        let lp = self.tok("(");
        let c = self.tok(cond);
        let expr = self.add(Kind::Expr, "", vec![c]);
        let rp = self.tok(")");
        self.add(Kind::IfStmt, "", vec![kw, lp, expr, rp, body])
    }

    /// `int main ( ) body`
    pub fn func(&mut self, body: NodeId) -> NodeId {
        let kids = vec![
            self.tok("int"),
            self.tok("main"),
            self.tok("("),
            self.tok(")"),
            body,
        ];
        self.add(Kind::Func, "", kids)
    }

    /// Turns the built nodes into an arena rooted at `root`.
    pub fn finish(self, root: NodeId) -> ToyTree {
        let arena = Arena::new(
            KIND_NAMES.iter().map(|s| s.to_string()).collect(),
            type_sets(),
        );
        let mut parent = vec![NONE; self.kinds.len()];
        for (id, kids) in self.kids.iter().enumerate() {
            for &c in kids {
                parent[c as usize] = id as NodeId;
            }
        }
        let nodes = (0..self.kinds.len())
            .map(|id| {
                let kind = self.kinds[id];
                (
                    class_of(kind),
                    kind as u16,
                    slot_of(&self.kinds, &parent, id),
                )
            })
            .collect();
        let arena = arena.from_links(root, nodes, self.kids);
        let labels = arena
            .leaves()
            .map(|leaf| self.node_labels[leaf as usize])
            .collect();
        ToyTree { arena, labels }
    }
}

fn class_of(kind: Kind) -> Class {
    match kind {
        Kind::Token => Class::Token,
        Kind::List => Class::List,
        _ => Class::Regular,
    }
}

/// A list's elements and a list itself take the `stmt` set; a fixed child admits its own kind.
fn slot_of(kinds: &[Kind], parent: &[NodeId], id: usize) -> u32 {
    let kind = kinds[id];
    match parent[id] {
        _ if kind == Kind::List => STMT_SET,
        NONE => NONE,
        p if kinds[p as usize] == Kind::List => STMT_SET,
        _ => kind as u32,
    }
}

fn type_sets() -> Vec<Vec<u64>> {
    let mut sets: Vec<Vec<u64>> = (0..7).map(|k| vec![1u64 << k]).collect();
    let stmt = (1 << Kind::IfStmt as u16) | (1 << Kind::Block as u16) | (1 << Kind::Call as u16);
    sets.push(vec![stmt]);
    sets
}

/// The spec's running demo: nested ifs, `crash()` innermost, `noise()` at every level; 48 tokens.
pub fn example_tree() -> ToyTree {
    let mut b = Builder::default();
    let crash = b.call("crash");
    let n0 = b.call("noise");
    let l3 = b.list(vec![crash, n0]);
    let blk3 = b.block(l3);
    let if3 = b.if_stmt("c3", blk3);
    let n1 = b.call("noise");
    let l2 = b.list(vec![if3, n1]);
    let blk2 = b.block(l2);
    let if2 = b.if_stmt("c2", blk2);
    let n2 = b.call("noise");
    let l1 = b.list(vec![if2, n2]);
    let blk1 = b.block(l1);
    let if1 = b.if_stmt("c1", blk1);
    let n3 = b.call("noise");
    let n4 = b.call("noise");
    let l0 = b.list(vec![if1, n3, n4]);
    let body = b.block(l0);
    let root = b.func(body);
    b.finish(root)
}

/// The spec's liveness picture: `int main() { if (c) { crash(); } }`.
pub fn promotion_tree() -> ToyTree {
    let mut b = Builder::default();
    let crash = b.call("crash");
    let inner_list = b.list(vec![crash]);
    let inner = b.block(inner_list);
    let if_stmt = b.if_stmt("c", inner);
    let outer_list = b.list(vec![if_stmt]);
    let outer = b.block(outer_list);
    let root = b.func(outer);
    b.finish(root)
}

/// The toy grammar's recognizer: does the space-joined program parse?
pub fn parses(src: &str) -> bool {
    let toks: Vec<&str> = src.split_whitespace().collect();
    let mut p = Parser { toks, pos: 0 };
    p.func() && p.pos == p.toks.len()
}

struct Parser<'a> {
    toks: Vec<&'a str>,
    pos: usize,
}

impl Parser<'_> {
    fn eat(&mut self, s: &str) -> bool {
        let ok = self.toks.get(self.pos) == Some(&s);
        self.pos += ok as usize;
        ok
    }

    fn ident(&mut self) -> bool {
        let ok = self
            .toks
            .get(self.pos)
            .is_some_and(|t| !matches!(*t, "int" | "main" | "if" | "(" | ")" | "{" | "}" | ";"));
        self.pos += ok as usize;
        ok
    }

    fn func(&mut self) -> bool {
        self.eat("int") && self.eat("main") && self.eat("(") && self.eat(")") && self.block()
    }

    fn block(&mut self) -> bool {
        if !self.eat("{") {
            return false;
        }
        while self.stmt() {}
        self.eat("}")
    }

    fn stmt(&mut self) -> bool {
        let save = self.pos;
        for alt in [Self::if_stmt, Self::block, Self::call] {
            if alt(self) {
                return true;
            }
            self.pos = save;
        }
        false
    }

    fn if_stmt(&mut self) -> bool {
        self.eat("if") && self.eat("(") && self.ident() && self.eat(")") && self.block()
    }

    fn call(&mut self) -> bool {
        self.ident() && self.eat("(") && self.eat(")") && self.eat(";")
    }
}
