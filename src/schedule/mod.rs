//! The reduction schedule for tree inputs, as a table of passes: C-Reduce's bulk passes by name
//! first (one call of their rounds, `cascade.rs`), then Vulcan's cycle: deletion (Perses or HDD rounds) to a fixpoint, then one rewrite
//! pass, deletion again after any pass that changed something, until a whole cycle changes
//! nothing. Each pass is measured (tests, successes, bytes and tokens removed, time).

use std::collections::HashSet;
use std::rc::Rc;
use std::time::Instant;

use anyhow::Result;
use xxhash_rust::xxh3::xxh3_64;

use crate::edits::{EditSpace, Pass};
use crate::engine::edit_oracle::EditOracle;
use crate::engine::reduce;
use crate::engine::tester::Tester;
use crate::lang::table::{self, Layout, RewriteTable};
use crate::passes::arrays::ArrayToScalar;
use crate::passes::fields::RemoveField;
use crate::passes::flatten::FlattenStruct;
use crate::passes::globals::FunctionToGlobal;
use crate::passes::hoist::Hoist;
use crate::passes::indent::reindent;
use crate::passes::inline::InlineReturn;
use crate::passes::layout::{compact, layout, squeeze};
use crate::passes::locals::LocalToGlobal;
use crate::passes::merge::MergeNames;
use crate::passes::methods::MethodToFunction;
use crate::passes::names::{Declarations, Unreferenced};
use crate::passes::pairs::BalancedPairs;
use crate::passes::params::{ParamToGlobal, RemoveParameter};
use crate::passes::pointers::PointerLevel;
use crate::passes::rename::Rename;
use crate::passes::returns::ReturnVoid;
use crate::passes::shapes::Shapes;
use crate::passes::smallest::Smallest;
use crate::passes::subsets::WindowSubsets;
use crate::passes::unifdef::Unifdef;
use crate::passes::windows::{MAX_WINDOW, TokenWindows};
use crate::passes::{closure, sigils};
use crate::policy::Verdict;
use crate::policy::closure::KeepClosure;
pub use crate::report::stats::{PassStats, pass_table};
use crate::tree::early::EarlyParse;
use crate::tree::front::Front;
use crate::tree::ts::{self, Reparse};

mod cascade;
mod deletion;
mod first;
mod lines;
mod rewrites;
mod tokens;
mod trees;

pub use first::first_listing;
use rewrites::group_end;
use trees::Trees;

/// A rewrite pass stops after this many rejected candidates in a row (`--thorough`: never).
pub const GIVE_UP_AFTER: usize = 200;

/// The keep-closure pass stops after this many needed items (each costs a binary search; more
/// means the names miss dependencies the test needs, which the deletion passes handle better).
const CLOSURE_MAX_ROOTS: usize = 8;

/// The keep-closure pass runs on files above this size: there list sweeps cost most (every
/// failing candidate is a test of the whole file). On smaller files the sweeps are cheap, and
/// cutting to one function's closure first can lock in a larger local minimum (zlib-inflate:
/// 27 tokens with it, 12 without).
const CLOSURE_MIN_BYTES: usize = 256 * 1024;

/// A deletion round stops once the program is down to this share of its tokens at the round's
/// start, so that the bulk passes by name (unreferenced items) run again before a long round
/// goes on: deleting code frees more dead code, and the bulk passes remove it in a few tests
/// where the round's list sweeps need one test per item.
const YIELD_SHARE: (usize, usize) = (3, 4);

/// Above this size the opening bulk passes repeat only while they remove a tenth of the file.
const BULK_REPEAT_MAX_BYTES: usize = 1 << 20;

/// Above this size the opening bulk passes sweep coarsely: chunks of at least
/// 1/[`COARSE_CHUNKS`] of a layer's edits (at most about `2 * COARSE_CHUNKS` tests a layer), so
/// a file where every test costs a second sheds its dead code in bulk before the deletion rounds
/// start; the cycle's runs of the same passes go down to single edits.
const COARSE_MIN_BYTES: usize = 256 * 1024;
const COARSE_CHUNKS: usize = 32;

/// The per-pass table counts tokens only on texts up to this size (a parse per pass).
const COUNT_TOKENS_MAX_BYTES: usize = 1 << 20;

/// Rewrite candidates of larger texts go to the test unparsed: parsing every candidate of a
/// multi-megabyte file would cost more than it saves (a size rule, so `-j` never matters).
pub(super) const PREFILTER_MAX_BYTES: usize = 256 * 1024;

/// How deletion runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletion {
    Perses,
    Hdd,
}

/// What the schedule may do.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub deletion: Deletion,
    /// Run the rewrite passes (else: deletion rounds only, as before rewrites existed).
    pub rewrites: bool,
    /// No give-up rules.
    pub thorough: bool,
    /// Short names for every declared name, once at the end (`--rename`).
    pub rename: bool,
    /// Skip candidates that parse worse than the best.
    pub prefilter: bool,
    /// Lay the result out canonically at the end (kept only if the test still accepts it).
    pub format: bool,
    /// With `format`: the fewest-bytes layout first (`--compact`), the canonical one if the
    /// test rejects it or the language needs its line breaks.
    pub compact: bool,
}

/// Runs the schedule on `tester.best`; returns the number of deletion rounds.
pub struct Driver<'a> {
    tester: &'a mut Tester,
    front: &'a Front,
    schedule: Schedule,
    /// The best text's trees and token counts.
    trees: Trees<'a>,
    /// The prefilter's parser.
    filter: Box<dyn Reparse>,
    /// The language's rewrite table: `None` for languages without one (deletion only).
    rewriter: Option<&'static RewriteTable>,
    pub rounds: u32,
    pub passes: Vec<PassStats>,
    /// Texts on which an enabling pass was undone (by hash): it is not tried there again.
    undone: HashSet<u64>,
    /// Perses's failed replacements, skipped in later rounds.
    recalled: deletion::Recalled,
    /// The size of the text the run started from: no layout makes the result larger.
    start_len: usize,
    /// The text before [`Self::quiet`] added its prelude.
    unquiet: Option<std::sync::Arc<[u8]>>,
    /// The cycle's passes: the rewrite table and the late passes (empty without rewrites).
    tables: Tables,
    /// The size of the best when the current cycle began.
    cycle_start: usize,
}

/// Which table of passes a cycle runs ([`Tables`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Main,
    Late,
}

/// The two tables of passes the cycles run.
#[derive(Clone)]
pub(super) struct Tables {
    main: Rc<[Box<dyn Pass>]>,
    late: Rc<[Box<dyn Pass>]>,
}

impl Tables {
    fn new(rewrites: bool) -> Tables {
        let (main, late) = match rewrites {
            true => (rewrite_table(), late_table()),
            false => (Vec::new(), Vec::new()),
        };
        Tables {
            main: main.into(),
            late: late.into(),
        }
    }

    fn get(&self, which: Which) -> &[Box<dyn Pass>] {
        match which {
            Which::Main => &self.main,
            Which::Late => &self.late,
        }
    }
}

/// The bulk passes by name: they open the run, and run again between deletion rounds where the
/// table says so.
fn bulk_table() -> Vec<Box<dyn Pass>> {
    vec![Box::new(Unreferenced), Box::new(Declarations)]
}

/// The rewrite passes in the order they run: the bulk passes and cheap ones first; among the
/// token windows the best yield per test first (bench/RESULTS.md, "Yield of each pass").
fn rewrite_table() -> Vec<Box<dyn Pass>> {
    let mut table = bulk_table();
    table.extend([
        Box::new(ParamToGlobal) as Box<dyn Pass>,
        Box::new(Smallest),
        Box::new(Shapes),
        Box::new(InlineReturn),
        Box::new(FunctionToGlobal),
        Box::new(Hoist),
        Box::new(MergeNames),
        Box::new(RemoveParameter),
        Box::new(PointerLevel),
        Box::new(ArrayToScalar),
        Box::new(RemoveField),
        Box::new(FlattenStruct),
        Box::new(Unifdef),
        Box::new(TokenWindows(3)),
        Box::new(TokenWindows(2)),
        Box::new(TokenWindows(1)),
        Box::new(BalancedPairs),
    ]);
    table
}

/// Passes that run only once the table above is at a fixpoint (and again only after they
/// changed something): they rarely remove anything while each costs tests on every cycle, so
/// they are a last try rather than part of every cycle.
fn late_table() -> Vec<Box<dyn Pass>> {
    let mut late: Vec<Box<dyn Pass>> = (4..=MAX_WINDOW)
        .map(|n| Box::new(TokenWindows(n)) as Box<dyn Pass>)
        .collect();
    late.push(Box::new(WindowSubsets));
    late.push(Box::new(LocalToGlobal));
    // a finishing touch: run early, a `void` function can no longer stand for a name the
    // program uses as a value, and the result can end larger
    late.push(Box::new(ReturnVoid));
    // C++: a class kept for the calls of one method goes once they are plain calls
    late.push(Box::new(MethodToFunction));
    late
}

impl<'a> Driver<'a> {
    /// A driver for `tester`'s best, with the run's first parse if it is of that text.
    pub fn new(
        tester: &'a mut Tester,
        front: &'a Front,
        schedule: Schedule,
        early: Option<EarlyParse>,
    ) -> Result<Self> {
        let rewriter = match front {
            Front::Grammar(g) => table::for_language(g.name),
            _ => None,
        };
        Ok(Driver {
            start_len: tester.best.len(),
            unquiet: None,
            tester,
            front,
            schedule,
            trees: Trees::new(front, early)?,
            filter: front.checker()?,
            rewriter,
            rounds: 0,
            passes: Vec::new(),
            undone: HashSet::new(),
            recalled: Default::default(),
            tables: Tables::new(schedule.rewrites && rewriter.is_some()),
            cycle_start: 0,
        })
    }

    /// The whole schedule, then the canonical layout. The best result is always one the test
    /// accepted.
    pub fn run(&mut self) -> Result<()> {
        self.tester.set_stall_limit(Some(lines::STALL));
        let reduced = self.reduce();
        self.tester.set_stall_limit(None);
        reduced?;
        if let Some(text) = self.unquiet.take()
            && self.tester.best.len() >= text.len()
        {
            self.tester.replace_best(&text);
        }
        if self.schedule.rename && self.rewriter.is_some() && !self.tester.stopped() {
            self.measured(&Rename, false)?;
        }
        let lays_out = self
            .rewriter
            .as_ref()
            .is_some_and(|r| r.layout != Layout::Keep);
        // the blank lines deletions left: before the layout, unless it is a brace language's,
        // which prints none (and after it, if the test rejected it)
        let braces = self.rewriter.is_some_and(|r| r.layout == Layout::Braces);
        let blank = |d: &Self| d.schedule.format && lines::has_blank_line(&d.tester.best);
        if !braces && blank(self) && !self.tester.stopped() {
            self.measure("blank-lines", Self::blank_lines)?;
        }
        if self.schedule.format && lays_out && !self.tester.stopped() {
            self.measure("layout", Self::layout)?;
        }
        if braces && blank(self) && !self.tester.stopped() {
            self.measure("blank-lines", Self::blank_lines)?;
        }
        if self.schedule.format && self.schedule.compact && !self.tester.stopped() {
            self.measure("squeeze-blank-lines", Self::squeeze)?;
        }
        Ok(())
    }

    /// The language's prelude that turns warnings off, before the text, if the test accepts
    /// it: the deletions that leave a name unused no longer fail a test that wants no warning.
    /// It makes the text larger: [`Self::run`] goes back to the text without it if the run
    /// ends no smaller than that.
    fn quiet(&mut self, prelude: &[u8]) -> Result<()> {
        let best = self.tester.best.clone();
        if best.starts_with(prelude) {
            return Ok(());
        }
        let quiet = [prelude, &best[..]].concat();
        if self.tester.verdict(&quiet) == Verdict::Interesting {
            self.tester.accept_any(&quiet);
            self.unquiet = Some(best);
        }
        Ok(())
    }

    /// `--compact`, for what no layout reaches (a file whose test reads its lines, text without
    /// a grammar): blank lines and trailing blanks go, in one test.
    fn squeeze(&mut self) -> Result<()> {
        let squeezed = squeeze(&self.tester.best);
        if squeezed.len() < self.tester.best.len()
            && self.tester.verdict(&squeezed) == Verdict::Interesting
        {
            self.tester.accept(&squeezed);
        }
        Ok(())
    }

    /// The final file laid out canonically (brace languages) or re-indented (Python), tested
    /// once more, kept only if still interesting.
    fn layout(&mut self) -> Result<()> {
        let best = self.tester.best.clone();
        let Some(t) = self.rewriter else {
            return Ok(());
        };
        let tree = self.trees.tree(&best)?;
        let compact = match (self.schedule.compact, t.layout) {
            (true, Layout::Braces) => compact(&tree, &best, t),
            _ => None,
        };
        let canonical = match t.layout {
            Layout::Braces => layout(&tree, &best, t),
            Layout::Indent => reindent(&tree, &best, t),
            Layout::Keep => None,
        };
        // the first layout the test accepts (or the best itself, already in that layout); none
        // larger than the input (an input already reduced, laid out otherwise)
        for laid_out in [compact, canonical].into_iter().flatten() {
            if laid_out[..] == best[..] {
                break;
            }
            if laid_out.len() > self.start_len {
                continue;
            }
            // the run's last test but the end's: its re-check and the empty file's test may
            // run alongside
            if self.tester.verdict_rechecking(&laid_out) == Verdict::Interesting {
                self.tester.replace_best(&laid_out);
                break;
            }
        }
        Ok(())
    }

    fn reduce(&mut self) -> Result<()> {
        let tables = self.tables.clone();
        let table = tables.get(Which::Main);
        // (a row in the pass table only where the language has a prelude)
        let prelude = self.rewriter.map_or("", |t| t.quiet_prelude);
        if !table.is_empty() && !prelude.is_empty() {
            self.measure("quiet-warnings", |d| d.quiet(prelude.as_bytes()))?;
        }
        let large = self.tester.best.len() > CLOSURE_MIN_BYTES;
        let members = self.rewriter.is_some_and(|r| r.member_lists);
        if large {
            if !table.is_empty() {
                self.measure("keep-closure", |d| d.closure(false, false))?;
                self.measure("keep-closure-bodies", |d| d.closure(true, false))?;
                // class members one by one only now: their search needs more roots (members
                // the test needs without naming them: constructors, operators), which a
                // smaller file pays for
                if members {
                    self.measure("keep-closure-members", |d| d.closure(true, true))?;
                }
            } else if self.schedule.rewrites && matches!(self.front, Front::Text) {
                self.measure("keep-closure", Self::text_closure)?;
            }
        }
        if !table.is_empty() {
            // C-Reduce's opening: bulk deletions by name before any list sweep, as one call
            // of their rounds listed on one parse (`schedule/cascade.rs`), again while a call
            // removes something; on a large file (where a call costs seconds of parsing) only
            // while it removes a tenth (the cycle below runs the bulk passes again anyway)
            loop {
                let before = self.tester.best.len();
                let coarse = before > COARSE_MIN_BYTES;
                self.cascade(coarse)?;
                let after = self.tester.best.len();
                let small_gain = after * 10 > before * 9 && before > BULK_REPEAT_MAX_BYTES;
                if after == before || small_gain || self.tester.stopped() {
                    break;
                }
            }
        }
        // a closure stops after CLOSURE_MAX_ROOTS roots and keeps everything below the last;
        // the bulk passes removed what some of those roots were needed for, so on what they
        // left the same number of roots reaches further down
        if large
            && !table.is_empty()
            && self.tester.best.len() > CLOSURE_MIN_BYTES
            && !self.tester.stopped()
        {
            self.measure("keep-closure-again", |d| d.closure(true, members))?;
        }
        self.measured_deletion()?;
        loop {
            while self.cycle(Which::Main, false)? {}
            // at the table's fixpoint: the late passes, back to the table after a change
            // at the fixpoint of both: rounds that skip no replacement, back to the table
            // if they changed something
            if self.tester.stopped() {
                return Ok(());
            }
            if self.cycle(Which::Late, true)? || self.full_rounds()? {
                continue;
            }
            // never behind plain lines: what is left may still go by lines
            if !self.last_sweep()? {
                return Ok(());
            }
            self.measured_deletion()?;
        }
    }

    /// Each pass of `passes` in turn, deletion after any that changed the best (with
    /// `first_change`: stop there); returns whether the best got smaller (false once stopped).
    /// An enabling pass that changed the text is undone at the end of the cycle unless the
    /// text is then smaller than before it, and is not tried again on that same text.
    fn cycle(&mut self, which: Which, first_change: bool) -> Result<bool> {
        let tables = self.tables.clone();
        let passes = tables.get(which);
        let start = self.tester.best.len();
        self.cycle_start = start;
        let mut enabled: Option<std::sync::Arc<[u8]>> = None;
        let mut i = 0;
        while i < passes.len() {
            let pass = &passes[i];
            self.guard()?;
            if self.tester.stopped() {
                break;
            }
            i += 1;
            if pass.enabling() {
                let before = self.tester.best.clone();
                if enabled.is_some() || self.undone.contains(&xxh3_64(&before)) {
                    continue;
                }
                self.measured(pass.as_ref(), false)?;
                if self.tester.best[..] != before[..] {
                    self.measured_deletion()?;
                    enabled = Some(before);
                }
                continue;
            }
            // this pass and those after it that can share its call (see `group_end`)
            let group = &passes[i - 1..group_end(passes, i - 1)];
            match self.rewrite_group(group)? {
                Some(k) => {
                    i += k;
                    self.measured_deletion()?;
                    // after a first change the cycle ends, and the table's cycle runs again
                    if first_change {
                        break;
                    }
                }
                None => i += group.len() - 1,
            }
        }
        if let Some(before) = enabled
            && self.tester.best.len() >= before.len()
        {
            self.undone.insert(xxh3_64(&before));
            // its own row of the pass table, so the rows still add up
            self.measure("undo-enabling", |d| {
                d.tester.replace_best(&before);
                Ok(())
            })?;
        }
        Ok(self.tester.best.len() < start && !self.tester.stopped())
    }

    /// Runs `step` and adds its figures to the pass named `name`; returns whether it changed
    /// the best.
    fn measure(&mut self, name: &str, step: impl FnOnce(&mut Self) -> Result<()>) -> Result<bool> {
        let bytes = self.tester.best.len();
        let tokens = self.tokens_before();
        let (tests, hits) = (self.tester.stats.tests, self.tester.stats.interesting);
        let start = Instant::now();
        step(self)?;
        let tokens = self.tokens_settled(tokens, bytes);
        let changed = self.tester.best.len() < bytes || matches!(name, "layout" | "undo-enabling");
        let resized = self.tester.best.len() != bytes;
        let tokens_after = if changed || resized {
            self.tokens()
        } else {
            tokens
        };
        self.add_stats(PassStats {
            name: name.into(),
            runs: 1,
            tests: self.tester.stats.tests - tests,
            successes: self.tester.stats.interesting - hits,
            bytes_removed: bytes as i64 - self.tester.best.len() as i64,
            tokens_removed: if tokens > 0 {
                tokens as i64 - tokens_after as i64
            } else {
                0
            },
            seconds: start.elapsed().as_secs_f64(),
        });
        Ok(changed)
    }

    /// Adds one run's figures to its pass's row of the table.
    fn add_stats(&mut self, run: PassStats) {
        PassStats::merge(&mut self.passes, run);
    }

    fn measured(&mut self, pass: &dyn Pass, coarse: bool) -> Result<bool> {
        self.measure(pass.name(), |d| d.rewrite(pass, coarse))
    }

    /// Keep only the dependency closure of the fewest items the test needs (see
    /// [`KeepClosure`]): one binary search per needed item, each candidate closed under uses.
    fn closure(&mut self, split_bodies: bool, members: bool) -> Result<()> {
        let src = self.tester.best.clone();
        let Some(t) = self.rewriter else {
            return Ok(());
        };
        let listed = match split_bodies || members {
            true => None,
            false => self.first_closure(&src),
        };
        // listed on the first parse's thread, a large file was parsed in pieces: its errors
        // are theirs, and no tree of the whole file is made here
        let in_pieces = |trees: &mut dyn Iterator<Item = tree_sitter::Tree>| {
            closure::units_in_pieces(trees, &src, t, split_bodies, members)
        };
        let (units, errors) = match listed {
            Some(units) => (units, self.trees.early_errors().unwrap_or(0)),
            // a large C or C++ file: no tree of the whole text either
            None if src.len() > CLOSURE_MIN_BYTES
                && let Some(listed) = self.trees.in_pieces(&src, in_pieces) =>
            {
                listed
            }
            None => {
                let tree = self.trees.tree(&src)?;
                let units = closure::units(&tree, &src, t, split_bodies, members);
                (units, ts::count_errors(&tree).0)
            }
        };
        // the closure's tests need the units, not the tree: on a large file the tree is most
        // of the memory while they run
        self.trees.forget();
        self.keep_closure(&src, units, errors);
        Ok(())
    }

    /// The closure pass on text whose names carry sigils (LLVM IR): see [`sigils`].
    fn text_closure(&mut self) -> Result<()> {
        let src = self.tester.best.clone();
        if let Some(units) = sigils::units(&src) {
            let errors = self.filter.errors(&src).unwrap_or(0);
            self.keep_closure(&src, units, errors);
        }
        Ok(())
    }

    /// Runs [`KeepClosure`] over `units` of `src` (the best, with `errors` parse errors).
    fn keep_closure(&mut self, src: &[u8], units: closure::Units, errors: usize) {
        let mut space = EditSpace::new(src.to_vec());
        let n = units.hunks.len();
        space.next_layer(&[], units.hunks);
        if space.hunks.len() != n || n < 2 {
            return;
        }
        let mut policy =
            KeepClosure::new(Rc::new(units.deps), CLOSURE_MAX_ROOTS).with_roots(units.fixed);
        let prefilter: Option<&mut dyn Reparse> =
            match self.schedule.prefilter && src.len() <= PREFILTER_MAX_BYTES {
                true => Some(self.filter.as_mut()),
                false => None,
            };
        let mut oracle = EditOracle::new("keep-closure", &space, self.tester, prefilter, errors)
            .with_workers(self.front.make_checker());
        reduce(space.all_units(), &mut oracle, &mut policy);
    }
}
