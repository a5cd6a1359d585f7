//! A timeline of the test runs and the serial chain's decisions, for studying the speculation:
//! with `REDUCE_TRACE=FILE` in the environment, one line per event goes to FILE,
//! `SECONDS EVENT WHAT`:
//!
//! - `B units`: a call of the loop (`engine::reduce`) begins, on that many units;
//! - `P phase`: a pass (its progress phase) begins;
//! - `S ticket`: a test of that ticket started (a worker took it; the workers' prefilter may
//!   still skip it, then its `D` follows within milliseconds);
//! - `D ticket`: that test ended (with a verdict, or cancelled);
//! - `X ticket`: the chain cancelled it (a misprediction);
//! - `C ticket`: the serial chain decided that ticket (in the order `-j1` decides): a ticket
//!   decided without an `S` was answered by the cache or the prefilter on the feeding thread;
//! - `V ticket verdict odds names kind index removed twin w0 w1 w2 w3`: with `-j` above 1,
//!   the verdict the chain used for that decision (`1` interesting), the success odds its
//!   model gave the candidate then, and what they came from (`engine/odds.rs`): the hint's
//!   names, the kind of pass (a number per run), the candidate's index in its pass, how many
//!   units it removes, its twin's verdict (0 unknown, 1 failed, 2 succeeded), and the hashes
//!   (hex) of the hint's four edge texts (0: none);
//! - `R room busy`: each CPU sample of the throttle (`throttle.rs`): the room it leaves and
//!   the CPUs' busy share since the last sample.
//!
//! `bench/chain_trace.py FILE` sums it up per pass. Without the variable nothing is written
//! and an event costs one check of a `OnceLock`.

use std::fmt::Display;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

struct Trace {
    out: BufWriter<File>,
    start: Instant,
}

static TRACE: OnceLock<Option<Mutex<Trace>>> = OnceLock::new();

fn trace() -> Option<&'static Mutex<Trace>> {
    TRACE
        .get_or_init(|| {
            let path = std::env::var_os("REDUCE_TRACE")?;
            let out = File::create(&path).ok()?;
            Some(Mutex::new(Trace {
                out: BufWriter::new(out),
                start: Instant::now(),
            }))
        })
        .as_ref()
}

/// Writes one event (see the module's documentation); a failed write is ignored.
pub fn event(kind: char, what: impl Display) {
    let Some(trace) = trace() else {
        return;
    };
    let mut t = trace.lock().unwrap_or_else(|e| e.into_inner());
    let seconds = t.start.elapsed().as_secs_f64();
    let _ = writeln!(t.out, "{seconds:.4} {kind} {what}");
}

/// Whether events are written (to skip work done only for the trace).
pub fn enabled() -> bool {
    trace().is_some()
}

/// A phase's name as one word of the trace.
pub fn phase(name: &str) {
    if trace().is_some() {
        event('P', name.replace(char::is_whitespace, "_"));
    }
}

/// Writes out what is buffered (at the end of a run).
pub fn flush() {
    if let Some(trace) = trace() {
        let _ = trace.lock().unwrap_or_else(|e| e.into_inner()).out.flush();
    }
}
