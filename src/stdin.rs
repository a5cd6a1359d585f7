//! `-` as the input: the whole of stdin is read before the first test runs. Nothing is written
//! beside a file that does not exist (no backup, no lock file); the result goes to stdout
//! unless `-o` names a file, and the summary stays on stderr.

use std::io::{IsTerminal, Read};

use anyhow::Result;

use crate::exit::{FailureKind, fail};

/// Reads all of stdin. A terminal (nothing piped in) and an empty stream are bad input.
pub fn read_stdin() -> Result<Vec<u8>> {
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        return Err(fail(
            FailureKind::BadInput,
            "input - is stdin, which is a terminal: pipe the input in (`cat crash.bin | reduce ... -`) or give a file",
        ));
    }
    let mut bytes = Vec::new();
    stdin.read_to_end(&mut bytes).map_err(|e| {
        fail(
            FailureKind::BadInput,
            format!("input - (stdin) cannot be read ({e})"),
        )
    })?;
    if bytes.is_empty() {
        return Err(fail(
            FailureKind::BadInput,
            "input - (stdin) is empty: there is nothing to reduce",
        ));
    }
    Ok(bytes)
}
