//! The reducer's own cost, without any test runs: parse + arena build time, and candidates per
//! second for ddmin, hdd and perses with an in-process oracle that always says "not interesting"
//! (so every pass runs to its end). Prints figures; asserts nothing about speed.
//!
//!     cargo bench --bench throughput [-- FILE.c] [-- --tokens N]
//!     cargo bench --bench throughput -- --languages
//!
//! `--languages`: parse + arena build of a 1 MB file per language (each language's fixture,
//! repeated), one row per language (target: under 1 s each).
//!
//! Without a file it builds a C file of at least N tokens (default 100,000) by repeating
//! `fixtures/inventory/input.c` with renamed functions.

use std::time::{Duration, Instant};

use reduce::engine::{Observes, Predicts, Runs, reduce};
use reduce::policy::ddmin::{Ddmin, Sweep};
use reduce::policy::hdd::Hdd;
use reduce::policy::perses::{ClearDone, Perses, PersesOptions};
use reduce::policy::{Policy, Unit, Verdict};
use reduce::tree::front::Front;
use reduce::tree::grammar::Grammar;
use reduce::tree::render::{Segments, Tokens};
use reduce::tree::ts;

/// Always "not interesting"; renders each candidate (as a real run must) and stops after a budget.
struct Counting<'a> {
    render: &'a dyn Fn(&[Unit], &mut Vec<u8>),
    buf: Vec<u8>,
    calls: u64,
    bytes: u64,
    deadline: Instant,
}

impl Runs for Counting<'_> {
    fn test(&mut self, candidate: &[Unit]) -> Verdict {
        (self.render)(candidate, &mut self.buf);
        self.calls += 1;
        self.bytes += self.buf.len() as u64;
        Verdict::NotInteresting
    }

    fn stop_requested(&self) -> bool {
        self.calls.is_multiple_of(64) && Instant::now() > self.deadline
    }
}

impl Predicts for Counting<'_> {}

impl Observes for Counting<'_> {}

fn measure(
    name: &str,
    units: usize,
    render: &dyn Fn(&[Unit], &mut Vec<u8>),
    policy: &mut dyn Policy,
    budget: Duration,
) {
    let mut oracle = Counting {
        render,
        buf: Vec::new(),
        calls: 0,
        bytes: 0,
        deadline: Instant::now() + budget,
    };
    let start = Instant::now();
    reduce((0..units as Unit).collect(), &mut oracle, policy);
    let secs = start.elapsed().as_secs_f64();
    let finished = Instant::now() <= oracle.deadline;
    println!(
        "{name:<8} {:>9} candidates in {secs:>6.2}s = {:>9.0} candidates/s ({:.0} MB/s rendered){}",
        oracle.calls,
        oracle.calls as f64 / secs,
        oracle.bytes as f64 / secs / 1e6,
        if finished {
            ", ran to its end"
        } else {
            ", stopped at the time budget"
        }
    );
}

fn synthetic(min_tokens: usize, grammar: &Grammar) -> Vec<u8> {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/inventory/input.c"
    ))
    .unwrap();
    let mut parser = ts::new_parser(grammar).unwrap();
    let per_copy = ts::build(grammar, &mut parser, base.as_bytes())
        .unwrap()
        .tokens
        .len();
    let copies = min_tokens.div_ceil(per_copy);
    let mut out = String::new();
    for i in 0..copies {
        out.push_str(
            &base
                .replace("helper_", &format!("h{i}_"))
                .replace("main(", &format!("main_{i}(")),
        );
    }
    out.into_bytes()
}

/// Parse + arena build of about 1 MB per language: its fixture (`fixtures/<lang>-*/input.*`)
/// repeated (a JSON fixture inside one array).
fn languages() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
    let mut cases: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(fixtures)
        .unwrap()
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let input = std::fs::read_dir(&dir)
                .ok()?
                .filter_map(|f| f.ok().map(|f| f.path()))
                .find(|f| f.file_stem().is_some_and(|s| s == "input"))?;
            let lang = match reduce::lang::for_path(&input) {
                Some(spec) => spec.name.to_string(),
                None => reduce::lang::TEXT.to_string(),
            };
            Some((lang, input))
        })
        .collect();
    cases.sort();
    cases.dedup_by(|a, b| a.0 == b.0);
    println!(
        "{:<11} {:>9} {:>8} {:>7} {:>9} {:>16}",
        "language", "bytes", "tokens", "errors", "parse ms", "parse+arena ms"
    );
    for (lang, input) in cases {
        let base = std::fs::read_to_string(&input).unwrap();
        let copies = (1usize << 20).div_ceil(base.len());
        let src = if lang == "json" {
            format!("[{}]", vec![base; copies].join(","))
        } else {
            base.repeat(copies)
        };
        let front = Front::by_name(&lang).unwrap();
        let mut checker = front.checker().unwrap();
        let t = Instant::now();
        checker.errors(src.as_bytes());
        let parse = t.elapsed();
        let t = Instant::now();
        let parsed = front.builder().unwrap().build(src.as_bytes()).unwrap();
        let build = t.elapsed();
        println!(
            "{lang:<11} {:>9} {:>8} {:>7} {:>9.0} {:>16.0}",
            src.len(),
            parsed.tokens.len(),
            parsed.errors,
            parse.as_secs_f64() * 1e3,
            build.as_secs_f64() * 1e3
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.iter().any(|a| a == "--languages") {
        return languages();
    }
    let tokens_arg = args
        .iter()
        .position(|a| a == "--tokens")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok());
    let file = args.iter().find(|a| a.ends_with(".c") || a.ends_with(".h"));
    let grammar = Grammar::new(&reduce::lang::c::SPEC).unwrap();
    let src = match file {
        Some(f) => std::fs::read(f).unwrap(),
        None => synthetic(tokens_arg.unwrap_or(100_000), &grammar),
    };
    let budget = Duration::from_secs(10);

    let mut parser = ts::new_parser(&grammar).unwrap();
    let t = Instant::now();
    let tree = ts::parse_tree(&mut parser, &src).unwrap();
    let parse = t.elapsed();
    drop(tree);
    let t = Instant::now();
    let parsed = ts::build(&grammar, &mut parser, &src).unwrap();
    let build = t.elapsed();
    let (arena, tokens): (_, Tokens) = (parsed.arena, parsed.tokens);
    println!(
        "input: {} bytes, {} tokens, {} arena nodes, {} parse errors",
        src.len(),
        tokens.len(),
        arena.len(),
        parsed.errors
    );
    println!(
        "parse: {:.1} ms; parse + arena build: {:.1} ms",
        parse.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e3
    );

    let render_tokens = |c: &[Unit], out: &mut Vec<u8>| tokens.render_into(c, out);
    let t = Instant::now();
    measure(
        "perses1",
        tokens.len(),
        &render_tokens,
        &mut OnePass(Perses::new(&arena, Sweep::new).options(real_options())),
        Duration::from_secs(600),
    );
    println!(
        "perses: one full pass (every candidate rejected) took {:.2}s",
        t.elapsed().as_secs_f64()
    );
    measure(
        "perses",
        tokens.len(),
        &render_tokens,
        &mut Perses::new(&arena, Sweep::new).options(real_options()),
        budget,
    );
    measure(
        "hdd",
        tokens.len(),
        &render_tokens,
        &mut Hdd::new(&arena, Sweep::new),
        budget,
    );
    let lines = Segments::lines(src.clone());
    let render_lines = |c: &[Unit], out: &mut Vec<u8>| lines.render_into(c, out);
    measure("ddmin", lines.len(), &render_lines, &mut Ddmin, budget);
}

fn real_options() -> PersesOptions {
    PersesOptions {
        skip_failed_replacements: true,
        clear_done: ClearDone::OnDeletion,
        lists_in_size_order: true,
        opt_deletions_in_walk: true,
    }
}

/// Stops a policy after its first pass.
#[derive(Clone)]
struct OnePass<P>(P);

impl<P: Policy + Clone> Policy for OnePass<P> {
    fn propose<'a>(&'a mut self, config: &'a [Unit]) -> reduce::policy::Deltas<'a> {
        self.0.propose(config)
    }

    fn on_reduced(&mut self, _reduced: Option<&[Unit]>) -> bool {
        false
    }
}
