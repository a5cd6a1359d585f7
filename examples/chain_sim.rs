//! The speculation's critical path in simulated time: every test takes one tick, `width` run at
//! once, whatever the machine's cores. Verdicts come from the real test (run once per distinct
//! candidate, memoized), the policy is the tuned Perses of `reduce` (one round, no prefilter).
//!
//!     cargo run --release --example chain_sim -- INPUT.c TEST.sh 1,2,8,32
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
    memo: &'a mut HashMap<Vec<u8>, bool>,
    width: usize,
    /// (ticket, tick it ends, verdict)
    running: Vec<(Ticket, u64, bool)>,
    now: u64,
    tests: u64,
}

impl Sim<'_> {
    fn judge(&mut self, c: &[Unit]) -> bool {
        let mut text = Vec::new();
        self.tokens.render_into(c, &mut text);
        if let Some(&v) = self.memo.get(&text) {
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
        self.memo.insert(text, ok);
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
        Started::Running
    }

    fn finish_one(&mut self) -> Option<(Ticket, Option<Verdict>)> {
        let i = (0..self.running.len()).min_by_key(|&i| self.running[i].1)?;
        let (ticket, end, verdict) = self.running.remove(i);
        self.now = self.now.max(end);
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
    let mut memo = HashMap::new();
    for width in widths.split(',') {
        let width: usize = width.parse()?;
        let mut sim = Sim {
            tokens: &parsed.tokens,
            test: &test,
            scratch: scratch.path(),
            memo: &mut memo,
            width,
            running: Vec::new(),
            now: 0,
            tests: 0,
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
    }
    Ok(())
}
