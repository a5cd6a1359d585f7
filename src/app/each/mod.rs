//! `reduce --each DIR -o OUTDIR`: a folder of fuzz crashes in one command (issue 41).
//!
//! As a recipe: read DIR ([`scan`]), check OUTDIR ([`index::check_outdir`]: new, empty, or this
//! command's earlier output, which resumes), run every file once for its failure signature
//! ([`sign`], `-j` at a time), group the failing files by signature ([`group`]), reduce each
//! group's smallest file ([`reduce`], the one-file machinery) and write it as the group's output,
//! then the index and a summary line per bug. The other files of a group are duplicates of its
//! output: their signature is the output's, so reducing them would cost as much again and find
//! the same bug. Without `--same-failure` a reduction may slip to another failure: its result
//! then joins (or is) the bug of that failure, and the group's next file is tried. After every
//! group the index is written, so an interrupted run resumes where it stopped: files whose bytes
//! have not changed keep their signature without a run, and finished groups are not redone.

mod group;
mod index;
mod reduce;
mod scan;
mod sign;
mod work;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use xxhash_rust::xxh3::xxh3_128;

use crate::app::cli::Output;
use crate::app::config::Config;
use crate::exec::check::Check;
use crate::exit::{FailureKind, fail};
use crate::report::progress::Progress;
use crate::signature::Signature;
use group::{Failing, Group, Ledger, Placed};
use index::{Bug, Index, Row, Status};
use scan::{Entry, State};

/// At most this many files of a group are reduced when each reduction slips to another failure
/// (no `--same-failure`); then the group's output is its smallest file as it is.
const MAX_TRIES: usize = 3;

pub fn run(cfg: Config) -> Result<ExitCode> {
    let start = Instant::now();
    let dir_arg = cfg.each.clone().context("--each without a directory")?;
    let Output::File(out) = cfg.output.clone() else {
        return Err(fail(
            FailureKind::Usage,
            "--each writes one file per bug into a directory: give -o OUTDIR",
        ));
    };
    let cwd = std::env::current_dir()
        .and_then(fs::canonicalize)
        .context("cannot read the current directory")?;
    let check = cfg.check.clone().ensure_runnable(&cwd)?;
    let skip: Vec<PathBuf> = [check.file(), cfg.temp_dir.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(|p| fs::canonicalize(p).ok())
        .collect();
    let entries = scan::scan(&dir_arg, &skip)?;
    let dir = fs::canonicalize(&dir_arg).context("cannot resolve --each DIR")?;
    let test = describe_test(&cfg, &check);
    let earlier = index::check_outdir(&out, (&dir, &dir_arg), &test)?;
    fs::create_dir_all(&out).map_err(|e| {
        fail(
            FailureKind::Io,
            format!("cannot create -o {} ({e})", out.display()),
        )
    })?;
    let mut each = Each::new(cfg, check, dir_arg, out, entries, earlier, test, start);
    each.sign()?;
    each.reduce_groups()?;
    each.finish()
}

/// The test as the index records it: a resumed run must have the same.
fn describe_test(cfg: &Config, check: &Check) -> String {
    let mut words = vec![check.describe()];
    words.extend(check.conditions.flags());
    if cfg.same_failure {
        words.push("--same-failure".into());
    }
    if let Some(algo) = cfg.algo {
        words.push(format!("--algo {}", algo.name()));
    }
    words.join(" ")
}

struct Each {
    cfg: Config,
    check: Check,
    /// DIR as given (for messages and paths).
    dir: PathBuf,
    out: PathBuf,
    entries: Vec<Entry>,
    rows: Vec<Row>,
    bugs: Vec<Bug>,
    ledger: Ledger,
    /// Per file: its signature run's time.
    elapsed: Vec<Duration>,
    earlier: Option<Index>,
    test: String,
    tests: u64,
    start: Instant,
}

impl Each {
    #[allow(clippy::too_many_arguments)] // built once, by `run`, from its recipe's steps
    fn new(
        cfg: Config,
        check: Check,
        dir: PathBuf,
        out: PathBuf,
        entries: Vec<Entry>,
        earlier: Option<Index>,
        test: String,
        start: Instant,
    ) -> Each {
        let rows = entries.iter().map(row_of).collect();
        let elapsed = vec![Duration::ZERO; entries.len()];
        Each {
            cfg,
            check,
            dir,
            out,
            entries,
            rows,
            bugs: Vec::new(),
            ledger: Ledger::default(),
            elapsed,
            earlier,
            test,
            tests: 0,
            start,
        }
    }

    fn bytes(&self, i: usize) -> &[u8] {
        match &self.entries[i].state {
            State::File(b) => b,
            _ => &[],
        }
    }

    fn shown(&self, i: usize) -> String {
        self.dir.join(&self.entries[i].rel).display().to_string()
    }

    /// The candidate's name: the file's own.
    fn name(&self, i: usize) -> OsString {
        self.entries[i]
            .rel
            .file_name()
            .map_or_else(|| "input".into(), |n| n.to_owned())
    }

    /// Every file's signature: from the earlier index when the file is unchanged, else by one
    /// run, `-j` at a time.
    fn sign(&mut self) -> Result<()> {
        let mut todo = Vec::new();
        for i in 0..self.entries.len() {
            if self.rows[i].status != Status::Pending {
                continue;
            }
            match self.earlier_row(i).cloned() {
                Some(old) => {
                    self.rows[i].signature = old.signature;
                    self.elapsed[i] = Duration::from_millis(old.run_ms);
                    self.rows[i].run_ms = old.run_ms;
                    if old.status == Status::NotFailing {
                        self.rows[i].status = Status::NotFailing;
                        self.rows[i].note = old.note;
                    }
                }
                None => todo.push(i),
            }
        }
        let jobs: Vec<sign::Job> = todo
            .iter()
            .map(|&i| sign::Job {
                name: self.name(i),
                shown: self.shown(i),
                bytes: self.bytes(i),
            })
            .collect();
        let progress = Progress::new(self.cfg.quiet, 0);
        let distinct = Mutex::new(std::collections::BTreeSet::new());
        let total = jobs.len();
        let seen = |done: usize, taken: &sign::Taken| {
            let mut d = distinct.lock().expect("no panic while counting");
            let new = taken.failure.as_ref().is_ok_and(|s| d.insert(s.hash()));
            // a line per new failure (and every 25 files): a folder of thousands stays readable
            if !new && done != total && !done.is_multiple_of(25) {
                return;
            }
            progress.note(&format!(
                "signatures: {done}/{total} files run, {} distinct failures so far",
                d.len()
            ));
        };
        let taken = sign::take_all(&self.cfg, &self.check, &jobs, &seen)?;
        progress.finish();
        self.tests += taken.len() as u64;
        for (&i, t) in todo.iter().zip(taken) {
            self.elapsed[i] = t.elapsed;
            self.rows[i].run_ms = t.elapsed.as_millis() as u64;
            match t.failure {
                Ok(signature) => self.rows[i].signature = Some(signature),
                Err(why) => {
                    self.rows[i].status = Status::NotFailing;
                    self.rows[i].note = why;
                }
            }
        }
        self.write_index(false)
    }

    /// The earlier index's row of file `i` when its bytes are the same and it was taken.
    fn earlier_row(&self, i: usize) -> Option<&Row> {
        let old = self.earlier.as_ref()?;
        old.files.iter().find(|r| {
            r.path == self.rows[i].path
                && r.content == self.rows[i].content
                && (r.signature.is_some() || r.status == Status::NotFailing)
        })
    }

    fn failing(&self) -> Vec<Failing> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.status == Status::Pending)
            .filter_map(|(i, r)| {
                Some(Failing {
                    file: i,
                    size: r.original_size,
                    path: r.path.clone(),
                    hash: r.signature.as_ref()?.hash(),
                })
            })
            .collect()
    }

    fn reduce_groups(&mut self) -> Result<()> {
        let failing = self.failing();
        if failing.is_empty() {
            return Err(self.nothing_fails());
        }
        self.adopt_earlier_bugs();
        let groups = group::groups(&failing);
        let width = self.width();
        let tasks = self.tasks(&groups, width > 1)?;
        let cfg = self.cfg.clone();
        work::with_workers(&cfg, width, &tasks, |work| {
            for n in 0..groups.len() {
                self.reduce_group(work, &groups, n)?;
                self.write_index(false)?;
            }
            Ok(())
        })
    }

    /// How many reductions run at once: `--algo bytes` tests one candidate at a time, so `-j`
    /// of them run side by side; any other algorithm uses the `-j` workers itself.
    fn width(&self) -> usize {
        match self.cfg.algo {
            Some(crate::app::cli::Algo::Bytes) => self.cfg.jobs,
            _ => 1,
        }
    }

    /// The reduction of every file a group may try, by file index.
    fn tasks(&self, groups: &[Group], quiet: bool) -> Result<Vec<Option<work::Task>>> {
        let mut tasks: Vec<Option<work::Task>> = (0..self.rows.len()).map(|_| None).collect();
        for (n, g) in groups.iter().enumerate() {
            for &m in g.members.iter().take(MAX_TRIES) {
                let signature = self.rows[m]
                    .signature
                    .clone()
                    .context("a failing file has a signature")?;
                let mut check = self.check.clone();
                if self.cfg.same_failure {
                    check.conditions.same = Some(signature.clone());
                }
                let input = reduce::Input {
                    path: self.dir.join(&self.entries[m].rel),
                    name: self.name(m),
                    bytes: self.bytes(m).to_vec(),
                    signature,
                    elapsed: self.elapsed[m],
                    context: format!("[group {}/{}] {}:", n + 1, groups.len(), self.rows[m].path),
                    quiet,
                };
                tasks[m] = Some(work::Task { input, check });
            }
        }
        Ok(tasks)
    }

    /// Bugs of the earlier run whose output is still there: finished groups, not redone.
    fn adopt_earlier_bugs(&mut self) {
        let Some(old) = self.earlier.take() else {
            return;
        };
        for bug in old.bugs {
            let Ok(bytes) = fs::read(self.out.join(&bug.output)) else {
                continue;
            };
            if let Placed::New(_) = self.ledger.place(bug.signature.hash(), xxh3_128(&bytes)) {
                self.bugs.push(bug);
            }
        }
        if !self.bugs.is_empty() && !self.cfg.quiet {
            eprintln!(
                "reduce: resuming: {} bug(s) of an earlier run of this command are done: {}",
                self.bugs.len(),
                self.bugs
                    .iter()
                    .map(|b| b.output.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        self.earlier = Some(Index {
            bugs: Vec::new(),
            ..old
        });
    }

    /// One group: reduce its smallest file (the next when a reduction slips), the rest are
    /// duplicates of the bug found. The first files of the groups after it are reduced ahead on
    /// idle workers.
    fn reduce_group(&mut self, work: &mut work::Work, groups: &[Group], n: usize) -> Result<()> {
        let g = &groups[n];
        let mut bug = self.ledger.find(g.hash);
        for &m in g.members.iter().take(MAX_TRIES) {
            if bug.is_some() {
                break;
            }
            let ahead: Vec<usize> = groups[n + 1..]
                .iter()
                .filter(|later| self.ledger.find(later.hash).is_none())
                .map(|later| later.members[0])
                .collect();
            let red = work.want(m, &ahead)?;
            bug = self.commit(g, m, red)?;
            self.note_group(n, groups.len(), m);
        }
        let bug = match bug {
            Some(b) => b,
            None => self.unreduced_bug(g)?,
        };
        for &m in &g.members {
            if self.rows[m].status == Status::Pending {
                let reduced = self.bugs[bug].representative == self.rows[m].path;
                self.rows[m].status = match reduced {
                    true => Status::Reduced,
                    false => Status::Duplicate,
                };
                if !reduced {
                    self.rows[m].note =
                        format!("the same failure as {}", self.bugs[bug].representative);
                }
                self.rows[m].bug = Some(bug);
            }
        }
        Ok(())
    }

    /// After each reduction: where the run stands (files done, bugs so far, the file).
    fn note_group(&self, n: usize, groups: usize, m: usize) {
        if self.cfg.quiet {
            return;
        }
        let done = self
            .rows
            .iter()
            .filter(|r| r.status != Status::Pending)
            .count();
        let line = match self.rows[m].bug {
            Some(b) => format!(
                "{} -> {} bytes ({})",
                self.rows[m].original_size, self.bugs[b].reduced_size, self.bugs[b].output
            ),
            None => "slipped".to_string(),
        };
        eprintln!(
            "reduce: [group {}/{groups}, {done}/{} files done, {} bugs] {}: {line}",
            n + 1,
            self.rows.len(),
            self.bugs.len(),
            self.rows[m].path
        );
    }

    /// Takes the reduction `red` of member `m` of `g`: the bug it gives `g`, or `None` when it
    /// slipped away.
    fn commit(&mut self, g: &Group, m: usize, red: reduce::Reduction) -> Result<Option<usize>> {
        let signature = self.rows[m]
            .signature
            .clone()
            .context("a failing file has a signature")?;
        self.tests += red.tests;
        if red.interrupted {
            self.write_index(false)?;
            return Err(fail(
                FailureKind::Interrupted,
                format!(
                    "interrupted while reducing {}: {} bug(s) done, in {}; to resume, run the same command again",
                    self.shown(m),
                    self.bugs.len(),
                    self.out.display()
                ),
            ));
        }
        let kept = match (&red.signature, self.cfg.same_failure || !red.confirmed) {
            // with --same-failure an interesting result is the same failure by definition; an
            // unconfirmed one (flaky) is kept as the group's, flagged
            (_, true) | (None, false) => signature.clone(),
            (Some(s), false) => s.clone(),
        };
        if kept.hash() == g.hash || self.cfg.same_failure || !red.confirmed {
            let placed = self.place(m, &signature, &red, None)?;
            return Ok(Some(placed));
        }
        // slipped: the result is another bug's, new or known
        let from = signature.short_name();
        let placed = self.place(m, &kept, &red, Some(from))?;
        self.rows[m].note = format!(
            "its reduction slipped to another failure ({}); the group's next file was tried",
            kept.describe()
        );
        Ok(self.ledger.find(g.hash).filter(|&b| b == placed))
    }

    /// Puts `red`, the reduction of file `m` with failure `signature`, in the ledger: a new
    /// bug's output, or a duplicate of a known one. Returns the bug.
    fn place(
        &mut self,
        m: usize,
        signature: &Signature,
        red: &reduce::Reduction,
        slipped_from: Option<String>,
    ) -> Result<usize> {
        match self.ledger.place(signature.hash(), xxh3_128(&red.best)) {
            Placed::New(b) => {
                let output = self.output_name(signature, m);
                crate::store::sink::write_output(&self.out.join(&output), &red.best)
                    .map_err(|e| fail(FailureKind::Io, format!("{e:#}")))?;
                self.bugs.push(Bug {
                    output,
                    short_name: short_name(signature),
                    hash: format!("{:016x}", signature.hash()),
                    signature: signature.clone(),
                    representative: self.rows[m].path.clone(),
                    original_size: self.rows[m].original_size,
                    reduced_size: red.best.len() as u64,
                    files: 0,
                    reduced: true,
                    confirmed: red.confirmed,
                    tests: red.tests,
                    slipped_from,
                });
                self.rows[m].status = Status::Reduced;
                self.rows[m].bug = Some(b);
                Ok(b)
            }
            Placed::SameSignature(b) | Placed::SameBytes(b) => {
                self.rows[m].status = Status::Duplicate;
                self.rows[m].bug = Some(b);
                self.rows[m].note = format!(
                    "reduced to the failure (or the bytes) of {}",
                    self.bugs[b].output
                );
                Ok(b)
            }
        }
    }

    /// Every reduction tried slipped: the group's output is its smallest file as it is.
    fn unreduced_bug(&mut self, g: &Group) -> Result<usize> {
        let m = g.members[0];
        let signature = self.rows[m]
            .signature
            .clone()
            .context("a failing file has a signature")?;
        let red = reduce::Reduction {
            best: self.bytes(m).to_vec(),
            signature: Some(signature.clone()),
            confirmed: true,
            tests: 0,
            interrupted: false,
        };
        let note = std::mem::take(&mut self.rows[m].note);
        self.rows[m].status = Status::Pending;
        let b = self.place(m, &signature, &red, None)?;
        self.bugs[b].reduced = false;
        self.rows[m].note = format!("not reduced: every reduction tried slipped ({note})");
        Ok(b)
    }

    /// `<short name>-<hash>.<ext>`: the signature's short name and 6 hex digits of its hash,
    /// the extension of file `m` (else `bin`).
    fn output_name(&self, signature: &Signature, m: usize) -> String {
        let ext = self.entries[m]
            .rel
            .extension()
            .and_then(|e| e.to_str())
            .filter(|e| {
                !e.is_empty() && e.len() <= 8 && e.bytes().all(|b| b.is_ascii_alphanumeric())
            })
            .unwrap_or("bin");
        let hash = format!("{:016x}", signature.hash());
        let base = format!("{}-{}", short_name(signature), &hash[..6]);
        let taken = |n: &str| self.bugs.iter().any(|b| b.output == n);
        let mut name = format!("{base}.{ext}");
        let mut k = 2;
        while taken(&name) {
            name = format!("{base}-{k}.{ext}");
            k += 1;
        }
        name
    }

    /// No file fails: the index lists why, and the run ends with exit 3.
    fn nothing_fails(&mut self) -> anyhow::Error {
        let written = self.write_index(true);
        let mut lines = vec![format!(
            "no file of --each {} fails ({} files; the list is in {}):",
            self.dir.display(),
            self.rows.len(),
            self.out.join(index::INDEX_CSV).display()
        )];
        for r in &self.rows {
            lines.push(format!("  {}: {}: {}", r.path, r.status.name(), r.note));
        }
        match written {
            Ok(()) => fail(FailureKind::NotInteresting, lines.join("\n")),
            Err(e) => e,
        }
    }

    fn index(&self, finished: bool) -> Index {
        let mut bugs = self.bugs.clone();
        for (b, bug) in bugs.iter_mut().enumerate() {
            bug.files = self.rows.iter().filter(|r| r.bug == Some(b)).count();
        }
        let mut files = self.rows.clone();
        for r in &mut files {
            if let Some(b) = r.bug {
                r.output = Some(self.bugs[b].output.clone());
                r.reduced_size = Some(self.bugs[b].reduced_size);
            }
        }
        Index {
            format: index::FORMAT.into(),
            dir: fs::canonicalize(&self.dir)
                .unwrap_or_else(|_| self.dir.clone())
                .display()
                .to_string(),
            test: self.test.clone(),
            finished,
            tests: self.tests,
            wall_seconds: self.start.elapsed().as_secs_f64(),
            bugs,
            files,
        }
    }

    fn write_index(&self, finished: bool) -> Result<()> {
        index::write(&self.out, &self.index(finished))
    }

    fn finish(self) -> Result<ExitCode> {
        let index = self.index(true);
        index::write(&self.out, &index)?;
        if let Some(path) = &self.cfg.stats_json {
            let json = serde_json::to_vec_pretty(&index)?;
            crate::store::sink::write_output(path, &json).map_err(|e| {
                fail(
                    FailureKind::Io,
                    format!("cannot write --stats-json {}: {e:#}", path.display()),
                )
            })?;
        }
        if !self.cfg.quiet {
            eprintln!("{}", summary(&index, &self.out));
        }
        if let Some(bug) = index.bugs.iter().find(|b| !b.confirmed) {
            return Err(fail(
                FailureKind::Flaky,
                format!(
                    "{} failed its final re-check: the test is flaky (it was interesting when found; it is kept)",
                    self.out.join(&bug.output).display()
                ),
            ));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// The signature's short name, or its kind's id when it has none.
fn short_name(signature: &Signature) -> String {
    let name = signature.short_name();
    match name.is_empty() {
        true => "failure".to_string(),
        false => name,
    }
}

/// The index row of a file as read.
fn row_of(entry: &Entry) -> Row {
    let (status, note, size, content) = match &entry.state {
        State::File(b) => (
            Status::Pending,
            String::new(),
            b.len() as u64,
            format!("{:032x}", xxh3_128(b)),
        ),
        State::Unreadable(why) => (Status::Unreadable, why.clone(), 0, String::new()),
        State::Skipped(why, size) => (Status::Skipped, why.clone(), *size, String::new()),
    };
    Row {
        path: entry.rel.to_string_lossy().into_owned(),
        status,
        content,
        original_size: size,
        reduced_size: None,
        bug: None,
        output: None,
        signature: None,
        note,
        run_ms: 0,
    }
}

/// `reduce: 3 bugs in 57 files: ...`, then a line per bug, then what was not a bug.
fn summary(index: &Index, out: &Path) -> String {
    let count = |s: Status| index.files.iter().filter(|r| r.status == s).count();
    let bugs = index.bugs.len();
    let mut text = format!(
        "reduce: {bugs} {} in {} files: {} tests, {:.1}s; {} in {}",
        if bugs == 1 { "bug" } else { "bugs" },
        index.files.len(),
        index.tests,
        index.wall_seconds,
        index::INDEX_JSON,
        out.display()
    );
    for bug in &index.bugs {
        text.push_str(&format!(
            "\n  {}: {} {}, {} -> {} bytes{}: {}",
            bug.output,
            bug.files,
            if bug.files == 1 { "file" } else { "files" },
            bug.original_size,
            bug.reduced_size,
            if bug.reduced { "" } else { " (not reduced)" },
            bug.signature.describe()
        ));
    }
    for (status, what) in [
        (Status::NotFailing, "not failing"),
        (Status::Unreadable, "unreadable"),
        (Status::Skipped, "skipped"),
    ] {
        let n = count(status);
        if n > 0 {
            let names: Vec<&str> = index
                .files
                .iter()
                .filter(|r| r.status == status)
                .map(|r| r.path.as_str())
                .take(5)
                .collect();
            let more = if n > names.len() { ", ..." } else { "" };
            text.push_str(&format!("\n  {what}: {n} ({}{more})", names.join(", ")));
        }
    }
    text
}
