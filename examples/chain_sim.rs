//! The speculation's critical path in simulated time: every test takes one tick, `width` run at
//! once, whatever the machine's cores. Verdicts come from the real test (run once per distinct
//! candidate, memoized), the policy is the tuned Perses of `reduce` (one round, no prefilter).
//!
//!     cargo run --release --example chain_sim -- INPUT.c TEST.sh 1,2,8,32
//!
//! `CHAIN_SIM_MEMO=FILE` keeps the verdicts across runs; `CHAIN_SIM_TRACE=DIR` writes, per
//! width, `trace.WIDTH.tsv`: each decision of the serial chain with the tick it was made at.
//!
//! Prints, per width, the ticks (the wall time in units of one test), the tests started and
//! the result's size; the ticks at width 1 over the ticks at width N is the best speedup the
//! speculation allows on that input when N tests really run at once.

use std::collections::HashMap;
use std::path::Path;

use reduce::reduce::ddmin::Sweep;
use reduce::reduce::perses::{ClearDone, Perses, PersesOptions};
use reduce::reduce::{Oracle, Started, Ticket, Unit, Verdict, reduce};
use reduce::tree::grammar::Grammar;
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
}

impl Sim<'_> {
    fn judge(&mut self, c: &[Unit]) -> bool {
        let mut text = Vec::new();
        self.tokens.render_into(c, &mut text);
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut h);
            h.finish()
        };
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let file = self.scratch.join("input.c");
        std::fs::write(&file, &text).expect("scratch file");
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

impl Oracle for Sim<'_> {
    fn test(&mut self, c: &[Unit]) -> Verdict {
        Verdict::from_bool(self.judge(c))
    }

    fn width(&self) -> usize {
        self.width
    }

    fn start(&mut self, ticket: Ticket, _parent: Option<Ticket>, c: &[Unit]) -> Started {
        let verdict = self.judge(c);
        self.tests += 1;
        self.running.push((ticket, self.now + 1, verdict));
        self.verdicts.insert(ticket, verdict);
        Started::Running
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        let i = (0..self.running.len()).min_by_key(|&i| self.running[i].1)?;
        let (ticket, end, verdict) = self.running.remove(i);
        self.now = self.now.max(end);
        Some((ticket, Some(Verdict::from_bool(verdict))))
    }

    fn on_pass(&mut self, phase: &str) {
        self.phase = phase.to_string();
        self.index = 0;
    }

    fn charge(&mut self, ticket: Ticket) -> bool {
        let verdict = self.verdicts.get(&ticket).copied().unwrap_or(false);
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
        drop(reduce::reduce::odds::Learned::take());
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
            sim.now,
            sim.tests,
            parsed.tokens.len(),
            result.len()
        );
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
