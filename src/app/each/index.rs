//! OUTDIR of `--each`: one reduced file per bug, `index.json` (the record a later run resumes
//! from) and `index.csv` (the same rows for a spreadsheet). OUTDIR must be new, empty, or this
//! command's own earlier output: an `index.json` of [`FORMAT`] for the same DIR and test, and
//! nothing but the files it names.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::exit::{FailureKind, fail};
use crate::signature::Signature;

/// The marker of an index `reduce --each` wrote (and its format's version).
pub const FORMAT: &str = "reduce-each-1";
pub const INDEX_JSON: &str = "index.json";
pub const INDEX_CSV: &str = "index.csv";

/// What became of one file of DIR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Its reduction is its bug's output.
    Reduced,
    /// The same bug as another file's output (same signature, or reduced to the same bytes).
    Duplicate,
    /// It does not fail (as the test says), so it is no bug.
    NotFailing,
    Unreadable,
    /// Not run: a symlink, a FIFO, an empty or huge file.
    Skipped,
    /// Its group is not done yet (an interrupted run).
    Pending,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Reduced => "reduced",
            Status::Duplicate => "duplicate",
            Status::NotFailing => "not-failing",
            Status::Unreadable => "unreadable",
            Status::Skipped => "skipped",
            Status::Pending => "pending",
        }
    }
}

/// One file of DIR.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// Relative to DIR.
    pub path: String,
    pub status: Status,
    /// xxh3-128 of its bytes, hex: a resumed run takes the signature of an unchanged file from
    /// here instead of running it again.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    pub original_size: u64,
    /// The size of the output that stands for it.
    pub reduced_size: Option<u64>,
    /// The bug (index into `bugs`) it belongs to.
    pub bug: Option<usize>,
    /// The output file that stands for it.
    pub output: Option<String>,
    /// Its failure, as its one run showed it.
    pub signature: Option<Signature>,
    /// Why it is not failing, unreadable or skipped; a duplicate's or slip's story.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Its signature run's time, in milliseconds (for the default timeout on resume).
    #[serde(default)]
    pub run_ms: u64,
}

/// One distinct bug: its output.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bug {
    /// The output's file name in OUTDIR.
    pub output: String,
    pub short_name: String,
    /// [`Signature::hash`], hex.
    pub hash: String,
    pub signature: Signature,
    /// The file (relative to DIR) whose reduction is the output.
    pub representative: String,
    pub original_size: u64,
    pub reduced_size: u64,
    /// How many files of DIR it stands for.
    pub files: usize,
    /// `false`: every reduction tried slipped to another failure, so the output is the
    /// representative as it was.
    pub reduced: bool,
    /// `false`: the output failed its final re-check (a flaky test); it is kept.
    pub confirmed: bool,
    /// Test runs its reduction took.
    pub tests: u64,
    /// Found only by reducing another bug's file, which slipped to it (no --same-failure).
    #[serde(default)]
    pub slipped_from: Option<String>,
}

/// The whole record.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Index {
    pub format: String,
    /// DIR, canonical.
    pub dir: String,
    /// The test, as [`crate::exec::check::Check::describe`] says it, and its conditions.
    pub test: String,
    /// Every group is done.
    pub finished: bool,
    /// Test runs of this run (a resumed run counts its own).
    pub tests: u64,
    pub wall_seconds: f64,
    pub bugs: Vec<Bug>,
    pub files: Vec<Row>,
}

/// The earlier output OUTDIR holds, if any; refuses an OUTDIR that is not new, empty or this
/// command's own (for `dir`, canonical, and `test`), and one inside DIR.
pub fn check_outdir(
    out: &Path,
    (dir, shown_dir): (&Path, &Path),
    test: &str,
) -> Result<Option<Index>> {
    let usage = |m: String| fail(FailureKind::Usage, m);
    let shown = out.display();
    let real = resolve(out);
    if real.starts_with(dir) {
        return Err(usage(format!(
            "-o {shown} is inside --each {}: the folder of crashes is never written to; give an OUTDIR outside it",
            shown_dir.display()
        )));
    }
    let meta = match fs::metadata(out) {
        Ok(meta) => meta,
        Err(_) => return Ok(None),
    };
    if !meta.is_dir() {
        return Err(usage(format!(
            "-o {shown} is not a directory: --each writes one file per bug into a directory"
        )));
    }
    let names: Vec<String> = fs::read_dir(out)
        .and_then(|d| {
            d.map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect()
        })
        .map_err(|e| fail(FailureKind::Io, format!("cannot read -o {shown} ({e})")))?;
    if names.is_empty() {
        return Ok(None);
    }
    let refuse = |why: String| {
        Err(usage(format!(
            "-o {shown} {why}; give a new or empty directory (or the OUTDIR of this very command, which resumes)"
        )))
    };
    let Some(index) = read_index(out) else {
        return refuse("holds files and no index.json of reduce --each".into());
    };
    if index.dir != dir.display().to_string() {
        return refuse(format!(
            "holds the output of reduce --each of another folder ({})",
            index.dir
        ));
    }
    if index.test != test {
        return refuse(format!(
            "holds the output of reduce --each with another test ({})",
            index.test
        ));
    }
    let ours = |n: &String| {
        n == INDEX_JSON
            || n == INDEX_CSV
            || n.starts_with(".reduce-")
            || index.bugs.iter().any(|b| &b.output == n)
    };
    if let Some(other) = names.iter().find(|n| !ours(n)) {
        return refuse(format!("holds {other}, which reduce --each did not write"));
    }
    Ok(Some(index))
}

/// `path` as it will be once created: canonical where it exists, else its parent's canonical
/// path and its name.
fn resolve(path: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(path) {
        return real;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => resolve(parent).join(name),
        _ => abs,
    }
}

fn read_index(out: &Path) -> Option<Index> {
    let text = fs::read(out.join(INDEX_JSON)).ok()?;
    let index: Index = serde_json::from_slice(&text).ok()?;
    (index.format == FORMAT).then_some(index)
}

/// Writes both index files, atomically each.
pub fn write(out: &Path, index: &Index) -> Result<()> {
    let io = |e: anyhow::Error| fail(FailureKind::Io, format!("{e:#}"));
    let json = serde_json::to_vec_pretty(index)?;
    crate::store::sink::write_output(&out.join(INDEX_JSON), &json).map_err(io)?;
    crate::store::sink::write_output(&out.join(INDEX_CSV), to_csv(index).as_bytes()).map_err(io)
}

/// One line per file: path, status, bug, kind, signature, sizes, output, note.
pub fn to_csv(index: &Index) -> String {
    let mut text =
        String::from("path,status,bug,kind,signature,original_size,reduced_size,output,note\n");
    for row in &index.files {
        let signature = row.signature.as_ref();
        let kind = signature
            .map(|s| {
                serde_json::to_value(s.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        let fields = [
            row.path.clone(),
            row.status.name().to_string(),
            row.bug.map_or(String::new(), |b| b.to_string()),
            kind,
            signature.map_or(String::new(), Signature::describe),
            row.original_size.to_string(),
            row.reduced_size.map_or(String::new(), |s| s.to_string()),
            row.output.clone().unwrap_or_default(),
            row.note.clone(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        text.push_str(&line.join(","));
        text.push('\n');
    }
    text
}

/// RFC 4180: quoted when it holds a comma, a quote or a line break (AFL's file names hold commas).
fn csv_field(field: &str) -> String {
    match field.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", field.replace('"', "\"\"")),
        false => field.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_with_commas_and_quotes_are_quoted() {
        assert_eq!(csv_field("id:000001,sig:06"), "\"id:000001,sig:06\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }

    #[test]
    fn an_outdir_inside_dir_or_holding_other_files_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap().join("crashes");
        fs::create_dir(&dir).unwrap();
        let err = check_outdir(&dir.join("bugs"), (&dir, &dir), "t").unwrap_err();
        assert!(format!("{err}").contains("inside --each"), "{err}");
        let out = tmp.path().join("bugs");
        assert!(check_outdir(&out, (&dir, &dir), "t").unwrap().is_none());
        fs::create_dir(&out).unwrap();
        assert!(check_outdir(&out, (&dir, &dir), "t").unwrap().is_none());
        fs::write(out.join("notes.txt"), "mine").unwrap();
        let err = check_outdir(&out, (&dir, &dir), "t").unwrap_err();
        assert!(format!("{err}").contains("no index.json"), "{err}");
    }
}
