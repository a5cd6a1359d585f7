//! The speculation's critical path in simulated time: every test takes one tick, `width` run at
//! once, whatever the machine's cores. Verdicts come from the real test (run once per distinct
//! candidate, memoized), the policy is the tuned Perses of `reduce` (one round, no prefilter).
//!
//!     cargo run --release --example chain_sim -- INPUT.c TEST.sh 1,2,8,32
//!
//! `CHAIN_SIM_MEMO=FILE` keeps the verdicts across runs; `CHAIN_SIM_TRACE=DIR` writes, per
//! width, `trace.WIDTH.tsv`: each decision of the serial chain with the tick it was made at.
//! `CHAIN_SIM_REAL=1` answers, as `reduce` does, a candidate the run has tested before (the
//! cache) or one that parses with more errors than its parent (the prefilter) at once, without
//! a tick; `CHAIN_SIM_JITTER=N` spreads the tests' lengths over 1000 +- N thousandths of a tick
//! (verdicts then arrive one by one, as on a real machine).
//!
//! Prints, per width, the ticks (the wall time in units of one test), the tests started and
//! the result's size; the ticks at width 1 over the ticks at width N is the best speedup the
//! speculation allows on that input when N tests really run at once.

use std::collections::HashMap;
use std::path::Path;

use reduce::engine::{Hint, Observes, Predicts, Runs, Started, Ticket, reduce};
use reduce::policy::ddmin::Sweep;
use reduce::policy::perses::{ClearDone, Perses, PersesOptions};
use reduce::policy::{Unit, Verdict};
use reduce::tree::grammar::Grammar;
use reduce::tree::hints::NameHints;
use reduce::tree::render::Tokens;
use reduce::tree::ts;

struct Sim<'a> {
    tokens: &'a Tokens,
    test: &'a Path,
    scratch: &'a Path,
    memo: &'a mut HashMap<u64, bool>,
    width: usize,
    /// (ticket, tick it ends, verdict)
    running: Vec<(Ticket, u64, bool)>,
    now: u64,
    tests: u64,
    /// Verdicts of started tickets, for the trace.
    verdicts: HashMap<Ticket, bool>,
    phase: String,
    /// Per decision of the serial chain: the tick it was made at, the pass's phase, the
    /// candidate's index in the pass and its verdict.
    trace: Vec<(u64, String, usize, bool)>,
    index: usize,
    /// `CHAIN_SIM_JITTER`, in thousandths of a tick.
    jitter: u64,
    /// `CHAIN_SIM_REAL=1`: a candidate the run already tested (the cache) or one that parses
    /// worse than its parent (the prefilter) is answered at once, without a tick, as in `reduce`.
    real: Option<Real>,
    /// The speculation's name hints (`None` with `CHAIN_SIM_NO_HINTS=1`).
    names: Option<NameHints<'a>>,
}

/// The cache and the prefilter of a real run, for `CHAIN_SIM_REAL`.
struct Real {
    parser: tree_sitter::Parser,
    seen: std::collections::HashSet<u64>,
    errors: HashMap<Ticket, usize>,
    /// The error count of the configuration last committed.
    committed: usize,
    pruned: u64,
    hits: u64,
}

impl Sim<'_> {
    fn key(&self, c: &[Unit]) -> (Vec<u8>, u64) {
        let mut text = Vec::new();
        self.tokens.render_into(c, &mut text);
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut h);
            h.finish()
        };
        (text, key)
    }

    /// With `CHAIN_SIM_REAL`: whether `c` is answered without a test (and so without a tick).
    fn free(
        &mut self,
        ticket: Ticket,
        parent: Option<Ticket>,
        text: &[u8],
        key: u64,
    ) -> Option<bool> {
        let real = self.real.as_mut()?;
        let tree = reduce::tree::reparse::parse_tree(&mut real.parser, text).expect("parse");
        let errors = reduce::tree::reparse::count_errors(&tree).0;
        real.errors.insert(ticket, errors);
        let baseline = parent
            .and_then(|p| real.errors.get(&p).copied())
            .unwrap_or(real.committed);
        if errors > baseline {
            real.pruned += 1;
            return Some(false);
        }
        if !real.seen.insert(key) {
            real.hits += 1;
            return Some(self.memo[&key]);
        }
        None
    }

    fn judge(&mut self, c: &[Unit]) -> bool {
        let (text, key) = self.key(c);
        self.judge_text(&text, key)
    }

    fn judge_text(&mut self, text: &[u8], key: u64) -> bool {
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let file = self.scratch.join("input.c");
        std::fs::write(&file, text).expect("scratch file");
        let ok = std::process::Command::new(self.test)
            .arg(&file)
            .current_dir(self.scratch)
            .status()
            .expect("the test runs")
            .success();
        self.memo.insert(key, ok);
        ok
    }
}

impl Runs for Sim<'_> {
    fn test(&mut self, c: &[Unit]) -> Verdict {
        Verdict::from_bool(self.judge(c))
    }

    fn width(&self) -> usize {
        self.width
    }

    fn start(&mut self, ticket: Ticket, parent: Option<Ticket>, c: &[Unit]) -> Started {
        let (text, key) = self.key(c);
        let free = self.free(ticket, parent, &text, key);
        let verdict = free.unwrap_or_else(|| self.judge_text(&text, key));
        if free.is_none() {
            self.tests += 1;
        }
        // a tick is 1000; the jitter spreads a test's length over 1000 +- jitter
        let jitter = self.jitter;
        let spread = match jitter {
            0 => 0,
            _ => (key ^ self.tests.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % (2 * jitter + 1),
        };
        let end = match free {
            Some(_) => self.now,
            None => self.now + 1000 - jitter + spread,
        };
        self.running.push((ticket, end, verdict));
        self.verdicts.insert(ticket, verdict);
        Started::Running
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        let i = (0..self.running.len()).min_by_key(|&i| self.running[i].1)?;
        let (ticket, end, verdict) = self.running.remove(i);
        self.now = self.now.max(end);
        Some((ticket, Some(Verdict::from_bool(verdict))))
    }

    fn charge(&mut self, ticket: Ticket) -> bool {
        let verdict = self.verdicts.get(&ticket).copied().unwrap_or(false);
        if let Some(real) = self.real.as_mut().filter(|_| verdict) {
            real.committed = real.errors.get(&ticket).copied().unwrap_or(real.committed);
        }
        let phase = self.phase.clone();
        self.trace.push((self.now, phase, self.index, verdict));
        self.index += 1;
        true
    }

    fn finished(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        let now = self.now;
        let i = self.running.iter().position(|r| r.1 <= now)?;
        let (ticket, _, verdict) = self.running.remove(i);
        Some((ticket, Some(Verdict::from_bool(verdict))))
    }

    fn cancel(&mut self, tickets: &[Ticket]) {
        for run in self.running.iter_mut().filter(|r| tickets.contains(&r.0)) {
            run.1 = self.now; // a cancelled run frees its worker at once
        }
    }
}

impl Predicts for Sim<'_> {
    fn hint(&mut self, config: &[Unit], delta: &[Unit]) -> Hint {
        let names = self.names.as_ref();
        names.map_or_else(Hint::default, |n| n.hint(config, delta))
    }
}

impl Observes for Sim<'_> {
    fn on_pass(&mut self, phase: &str) {
        self.phase = phase.to_string();
        self.index = 0;
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, test, widths] = &args[..] else {
        anyhow::bail!("usage: chain_sim INPUT.c TEST.sh WIDTH[,WIDTH...]");
    };
    let src = std::fs::read(input)?;
    let test = std::path::absolute(test)?;
    let scratch = tempfile::tempdir()?;
    let grammar = Grammar::new(&reduce::lang::c::SPEC)?;
    let mut parser = ts::new_parser(&grammar)?;
    let parsed = ts::build(&grammar, &mut parser, &src)?;
    let memo_file = std::env::var_os("CHAIN_SIM_MEMO");
    let mut memo = load_memo(memo_file.as_deref());
    for width in widths.split(',') {
        let width: usize = width.parse()?;
        // every width starts as cold as the first: nothing learned from the previous run
        drop(reduce::engine::odds::Learned::take());
        let mut sim = Sim {
            tokens: &parsed.tokens,
            test: &test,
            scratch: scratch.path(),
            memo: &mut memo,
            width,
            running: Vec::new(),
            now: 0,
            tests: 0,
            verdicts: HashMap::new(),
            phase: String::new(),
            trace: Vec::new(),
            index: 0,
            names: match std::env::var_os("CHAIN_SIM_NO_HINTS") {
                Some(_) => None,
                None => Some(NameHints::new(&parsed.tokens)),
            },
            jitter: std::env::var("CHAIN_SIM_JITTER")
                .ok()
                .and_then(|j| j.parse().ok())
                .unwrap_or(0),
            real: match std::env::var_os("CHAIN_SIM_REAL") {
                Some(_) => Some(Real {
                    parser: ts::new_parser(&grammar)?,
                    seen: Default::default(),
                    errors: HashMap::new(),
                    committed: reduce::tree::reparse::count_errors(&parsed_tree(&grammar, &src)?).0,
                    pruned: 0,
                    hits: 0,
                }),
                None => None,
            },
        };
        let all: Vec<Unit> = (0..parsed.tokens.len() as Unit).collect();
        let options = PersesOptions {
            skip_failed_replacements: true,
            clear_done: ClearDone::OnDeletion,
            lists_in_size_order: true,
            opt_deletions_in_walk: true,
        };
        let mut perses = Perses::new(&parsed.arena, Sweep::new).options(options);
        let result = reduce(all, &mut sim, &mut perses);
        println!(
            "width {width}: {} ticks, {} tests, {} -> {} tokens",
            sim.now / 1000,
            sim.tests,
            parsed.tokens.len(),
            result.len()
        );
        if let Some(real) = &sim.real {
            println!("  pruned {}, cache hits {}", real.pruned, real.hits);
        }
        if let Some(dir) = std::env::var_os("CHAIN_SIM_TRACE") {
            let mut tsv = String::from("tick\tphase\tindex\tinteresting\n");
            for (tick, phase, index, verdict) in &sim.trace {
                tsv += &format!("{tick}\t{phase}\t{index}\t{}\n", u8::from(*verdict));
            }
            std::fs::write(Path::new(&dir).join(format!("trace.{width}.tsv")), tsv)?;
        }
    }
    if let Some(file) = memo_file {
        let lines: String = memo
            .iter()
            .map(|(k, v)| format!("{k:x} {}\n", u8::from(*v)))
            .collect();
        std::fs::write(file, lines)?;
    }
    Ok(())
}

fn parsed_tree(grammar: &Grammar, src: &[u8]) -> anyhow::Result<tree_sitter::Tree> {
    reduce::tree::reparse::parse_tree(&mut ts::new_parser(grammar)?, src)
}

/// Verdicts of earlier runs (`CHAIN_SIM_MEMO`: lines of text hash and 0/1), to iterate fast.
fn load_memo(file: Option<&std::ffi::OsStr>) -> HashMap<u64, bool> {
    let text = file
        .and_then(|f| std::fs::read_to_string(f).ok())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((u64::from_str_radix(k, 16).ok()?, v == "1"))
        })
        .collect()
}
