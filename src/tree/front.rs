//! The front end a tree run uses: a tree-sitter grammar from the language registry, or the
//! bracket tree for any other text. Builds trees, makes the prefilter's checker, finds comments.

use anyhow::Result;
use tree_sitter::Parser;

use super::Unit;
use super::grammar::Grammar;
use super::reparse::Incremental;
use super::text::{self, BracketCheck};
use super::ts::{self, Parsed, Reparse};
use crate::lang::{self, LangSpec};

#[derive(Clone)]
pub enum Front {
    Grammar(Box<Grammar>),
    /// The bracket tree ([`text`]).
    Text,
}

/// Builds trees for one front end (a tree-sitter parser is reused between builds).
pub enum TreeBuilder<'f> {
    Grammar(&'f Grammar, Parser),
    Text,
}

impl Front {
    pub fn grammar(spec: &'static LangSpec) -> Result<Front> {
        Ok(Front::Grammar(Box::new(Grammar::new(spec)?)))
    }

    /// The front end `--lang NAME` names (`text` = the bracket tree).
    pub fn by_name(name: &str) -> Result<Front> {
        match lang::by_name(name) {
            Some(spec) => Front::grammar(spec),
            None => Ok(Front::Text),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Front::Grammar(g) => g.name,
            Front::Text => lang::TEXT,
        }
    }

    pub fn builder(&self) -> Result<TreeBuilder<'_>> {
        Ok(match self {
            Front::Grammar(g) => TreeBuilder::Grammar(g, ts::new_parser(g)?),
            Front::Text => TreeBuilder::Text,
        })
    }

    /// The prefilter's checker: re-parses candidates.
    pub fn checker(&self) -> Result<Box<dyn Reparse>> {
        Ok(match self {
            Front::Grammar(g) => Box::new(Incremental::new(ts::new_parser(g)?)),
            Front::Text => Box::new(BracketCheck),
        })
    }

    /// Makes the prefilter's checker on any thread (a test worker's own parser).
    pub fn make_checker(&self) -> super::reparse::MakeChecker {
        match self {
            Front::Grammar(g) => {
                let (language, name) = (g.language.clone(), g.name);
                std::sync::Arc::new(move || {
                    let mut parser = Parser::new();
                    parser.set_language(&language).map_err(|e| {
                        anyhow::anyhow!("the {name} grammar does not load into tree-sitter: {e}")
                    })?;
                    Ok(Box::new(Incremental::new(parser)) as Box<dyn Reparse>)
                })
            }
            Front::Text => std::sync::Arc::new(|| Ok(Box::new(BracketCheck) as Box<dyn Reparse>)),
        }
    }

    /// The comment tokens of a tree, sorted (none for the bracket tree: it knows no comments).
    pub fn comment_tokens(&self, parsed: &Parsed) -> Vec<Unit> {
        let Front::Grammar(g) = self else {
            return Vec::new();
        };
        let arena = &parsed.arena;
        (0..)
            .zip(arena.leaves())
            .filter(|&(_, leaf)| g.is_comment(arena.node(leaf).kind()))
            .map(|(t, _)| t)
            .collect()
    }
}

impl TreeBuilder<'_> {
    pub fn build(&mut self, src: &[u8]) -> Result<Parsed> {
        match self {
            TreeBuilder::Grammar(g, parser) => ts::build(g, parser, src),
            TreeBuilder::Text => Ok(text::build(src)),
        }
    }
}
