//! `-` as the input: the whole of stdin is read before the first test runs. Nothing is written
//! beside a file that does not exist (no backup, no lock file); the result goes to stdout
//! unless `-o` names a file, and the summary stays on stderr.
//!
//! The read is bounded (`--max-stdin`) and interruptible: it waits for data in short polls and
//! looks at the interrupt flag between them (the signal handlers restart a blocking read, so a
//! plain read of a stream that never ends or never closes would ignore Ctrl-C).

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::os::fd::{AsFd, AsRawFd};

use anyhow::Result;

use crate::exit::{FailureKind, fail};

/// The longest wait for data without a look at the interrupt flag, in milliseconds.
const POLL_MS: libc::c_int = 50;

/// The default of `--max-stdin`.
pub const DEFAULT_MAX_STDIN: &str = "1G";

/// Reads all of stdin, at most `limit` bytes. A terminal (nothing piped in), an empty stream
/// and a longer one are bad input; a signal while waiting stops the run (128+signal).
pub fn read_stdin(limit: u64) -> Result<Vec<u8>> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Err(fail(
            FailureKind::BadInput,
            "input - is stdin, which is a terminal: pipe the input in (`cat crash.bin | reduce ... -`) or give a file",
        ));
    }
    let unreadable = |e: io::Error| {
        fail(
            FailureKind::BadInput,
            format!("input - (stdin) cannot be read ({e})"),
        )
    };
    // a descriptor of our own on the same stream: read directly, past std's buffer
    let mut file = File::from(stdin.as_fd().try_clone_to_owned().map_err(unreadable)?);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        if crate::signal::interrupted() {
            return Err(fail(
                FailureKind::Interrupted,
                "interrupted while reading the input from stdin; nothing was changed",
            ));
        }
        if !readable(&file).map_err(unreadable)? {
            continue;
        }
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) =>
            {
                continue;
            }
            Err(e) => return Err(unreadable(e)),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > limit {
            return Err(fail(
                FailureKind::BadInput,
                format!(
                    "input - (stdin) is longer than --max-stdin {}: raise the limit (e.g. --max-stdin {}) to reduce a larger input",
                    size_text(limit),
                    size_text(limit.saturating_mul(4).max(1 << 20)),
                ),
            ));
        }
    }
    if bytes.is_empty() {
        return Err(fail(
            FailureKind::BadInput,
            "input - (stdin) is empty: there is nothing to reduce",
        ));
    }
    Ok(bytes)
}

/// Waits at most [`POLL_MS`] for `file` to have data (or its end) to read.
fn readable(file: &File) -> io::Result<bool> {
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the duration of the call.
    match unsafe { libc::poll(&mut poll, 1, POLL_MS) } {
        -1 => match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            e => Err(e),
        },
        0 => Ok(false),
        // POLLHUP, POLLERR or POLLNVAL: the read says what happened
        _ => Ok(true),
    }
}

/// `1G`, `64M`, `3K` when the size is a whole number of those, else bytes.
pub fn size_text(bytes: u64) -> String {
    for (shift, suffix) in [(30, "G"), (20, "M"), (10, "K")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_back_with_their_suffix() {
        assert_eq!(size_text(1 << 30), "1G");
        assert_eq!(size_text(3 << 20), "3M");
        assert_eq!(size_text(1536), "1536");
        assert_eq!(size_text(2048), "2K");
        assert_eq!(size_text(0), "0");
    }
}
