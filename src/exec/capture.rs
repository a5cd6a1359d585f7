//! Bounded capture of a test's stdout or stderr through a pipe: a thread drains the pipe to its
//! end (so the test never blocks on a full pipe, and never sees SIGPIPE because we stopped
//! reading) but keeps only the first [`HEAD_LIMIT`] bytes and the last [`TAIL_LIMIT`] bytes.
//! `--stdout`/`--stderr` regexes search those two pieces; `--verbose` shows the end.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use regex::bytes::Regex;

/// Bytes kept from the start of a stream, and from its end (beyond the head): what a failure
/// signature reads is what a `--stderr` regex searches.
pub use crate::signature::{HEAD_LIMIT, TAIL_LIMIT};
/// What a regex condition searches, in words.
pub const SEARCHED: &str = "the first 4 MiB and the last 1 MiB";

/// How long to wait for a pipe's end once the run is over: a process that escaped the test's
/// process group may still hold it open; what arrived so far is used.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// What was kept of one stream.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub head: Vec<u8>,
    pub tail: VecDeque<u8>,
    /// Bytes read but kept in neither piece.
    pub dropped: u64,
}

impl Captured {
    pub fn push(&mut self, mut bytes: &[u8]) {
        let room = HEAD_LIMIT.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        bytes = rest;
        if bytes.len() > TAIL_LIMIT {
            let skip = bytes.len() - TAIL_LIMIT;
            self.dropped += (skip + self.tail.len()) as u64;
            self.tail.clear();
            bytes = &bytes[skip..];
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(TAIL_LIMIT);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(bytes);
    }

    /// The head and the tail as one text; a line cut by the gap between them ends at the gap.
    pub fn joined(&self) -> Vec<u8> {
        let mut bytes = self.head.clone();
        if self.dropped > 0 {
            bytes.push(b'\n');
        }
        bytes.extend(self.tail.iter());
        bytes
    }

    /// Whether `regex` matches the head or the tail (a match across the gap is not seen).
    pub fn is_match(&self, regex: &Regex) -> bool {
        if regex.is_match(&self.head) {
            return true;
        }
        let (a, b) = self.tail.as_slices();
        match b.is_empty() {
            true => regex.is_match(a),
            false => regex.is_match(&[a, b].concat()),
        }
    }

    /// The last `n` bytes kept, as text starting on a character boundary.
    pub fn last_text(&self, n: usize) -> String {
        let mut bytes: Vec<u8> = self.tail.iter().copied().collect();
        if bytes.len() < n {
            let need = (n - bytes.len()).min(self.head.len());
            let mut joined = self.head[self.head.len() - need..].to_vec();
            joined.append(&mut bytes);
            bytes = joined;
        }
        let bytes = &bytes[bytes.len().saturating_sub(n)..];
        let skip = bytes
            .iter()
            .take(3)
            .take_while(|&&b| b & 0xC0 == 0x80)
            .count();
        String::from_utf8_lossy(&bytes[skip..]).into_owned()
    }
}

/// A stream being captured by its own thread.
pub struct Capture {
    kept: Arc<Mutex<Captured>>,
    done: Receiver<()>,
}

impl Capture {
    /// Starts draining `pipe`.
    pub fn start(mut pipe: impl Read + Send + 'static) -> std::io::Result<Capture> {
        let kept = Arc::new(Mutex::new(Captured::default()));
        let (tx, done) = channel();
        let shared = kept.clone();
        std::thread::Builder::new()
            .name("reduce-capture".into())
            .spawn(move || {
                let mut buf = vec![0; 64 * 1024];
                loop {
                    match pipe.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => shared
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(&buf[..n]),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = tx.send(());
            })?;
        Ok(Capture { kept, done })
    }

    /// Waits (a bounded time) for the end of the stream and returns what was kept.
    pub fn finish(self) -> Captured {
        let _ = self.done.recv_timeout(DRAIN_WAIT);
        std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The captured streams of one run: each `None` when it goes to `/dev/null`.
#[derive(Default)]
pub struct Captures {
    stdout: Option<Capture>,
    stderr: Option<Capture>,
}

/// What [`Captures::finish`] returns.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub stdout: Option<Captured>,
    pub stderr: Option<Captured>,
}

impl Captures {
    /// Where a stream goes: a pipe to capture, or nowhere.
    pub fn stdio(wanted: bool) -> std::process::Stdio {
        match wanted {
            true => std::process::Stdio::piped(),
            false => std::process::Stdio::null(),
        }
    }

    /// Starts capturing the child's piped streams.
    pub fn take(child: &mut std::process::Child) -> std::io::Result<Captures> {
        Ok(Captures {
            stdout: child.stdout.take().map(Capture::start).transpose()?,
            stderr: child.stderr.take().map(Capture::start).transpose()?,
        })
    }

    pub fn finish(self) -> Output {
        Output {
            stdout: self.stdout.map(Capture::finish),
            stderr: self.stderr.map(Capture::finish),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stream_keeps_its_head_and_tail_only() {
        let mut c = Captured::default();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..8 {
            c.push(&chunk);
        }
        c.push(b"the end");
        assert_eq!(c.head.len(), HEAD_LIMIT);
        assert_eq!(c.tail.len(), TAIL_LIMIT);
        assert_eq!(c.dropped, (8 << 20) + 7 - (HEAD_LIMIT + TAIL_LIMIT) as u64);
        assert!(c.last_text(100).ends_with("xthe end"));
        assert!(c.is_match(&Regex::new("the end$").unwrap()));
        assert!(!c.is_match(&Regex::new("y").unwrap()));
    }

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut c = Captured::default();
        c.push(b"hello ");
        c.push(b"world\n");
        assert_eq!(c.head, b"hello world\n");
        assert_eq!(c.last_text(6), "world\n");
        assert_eq!(c.last_text(100), "hello world\n");
    }

    #[test]
    fn a_pipe_is_drained_to_its_end() {
        let data: Vec<u8> = (0..(6 << 20)).map(|i| (i % 251) as u8).collect();
        let capture = Capture::start(std::io::Cursor::new(data.clone())).unwrap();
        let c = capture.finish();
        assert_eq!(c.head, data[..HEAD_LIMIT]);
        let tail: Vec<u8> = c.tail.iter().copied().collect();
        assert_eq!(tail, data[data.len() - TAIL_LIMIT..]);
    }
}
