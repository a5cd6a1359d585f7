//! `--preprocess`: is the program after `--` a C or C++ compiler, which of its flags change
//! what the preprocessor makes of the input, and the preprocessor's run.
//!
//! A compiler is named `gcc`, `g++`, `clang`, `clang++`, `cc` or `c++`, perhaps with a version
//! (`gcc-12`, `clang++-14`, `g++-12.2`) and a target prefix (`x86_64-linux-gnu-g++-12`).
//! The preprocessor run keeps the flags that decide what `-E` gives: include paths (`-I`,
//! `-isystem`, `-iquote`, `-idirafter`, `-include`, `-imacros`, `-nostdinc`), macros (`-D`, `-U`),
//! the language and its standard (`-x`, `-std=`, `-ansi`), and the flags that define macros
//! headers test (`-O*` for `__OPTIMIZE__`, `-m*` for the target's, `-pthread`, `-fopenmp`);
//! everything else (`-c`, `-o`, warnings, `@@`) is dropped. A relative path in those flags is
//! read from the input's directory.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The compilers' names, without version or target.
const NAMES: &[&str] = &["gcc", "g++", "clang", "clang++", "cc", "c++"];

/// Flags kept whose value may be the next word (`-I dir`) or attached (`-Idir`); the ones
/// whose value is a path.
const WITH_PATH: &[&str] = &[
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-imacros",
];

/// Flags kept whose value may be the next word or attached, not a path.
const WITH_VALUE: &[&str] = &["-D", "-U", "-x"];

/// Whether `program` (a name or a path) names a C or C++ compiler.
pub fn is_compiler(program: &OsStr) -> bool {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // a version: `-12`, `-14.0`
    let base = match name.rsplit_once('-') {
        Some((base, version))
            if !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && version.as_bytes()[0].is_ascii_digit() =>
        {
            base
        }
        _ => name.as_str(),
    };
    // a target prefix: `x86_64-linux-gnu-`
    let tool = base.rsplit('-').next().unwrap_or(base);
    NAMES.contains(&tool)
}

/// Whether the text has an `#include "..."` line (a local header).
pub fn includes_local_header(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|line| {
        let line = trim_start(line);
        let Some(rest) = line.strip_prefix(b"#") else {
            return false;
        };
        let rest = trim_start(rest);
        rest.strip_prefix(b"include")
            .is_some_and(|r| trim_start(r).starts_with(b"\""))
    })
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let n = bytes
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    &bytes[n..]
}

fn is_candidate(word: &OsStr) -> bool {
    word.as_bytes().windows(2).any(|w| w == b"@@")
}

/// The flags of `args` (the words after the compiler) that the preprocessor run keeps, each
/// path made absolute from `base` (the input's directory).
pub fn preprocessor_flags(args: &[OsString], base: &Path) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if is_candidate(word) {
            continue;
        }
        let text = word.to_string_lossy();
        let split = WITH_PATH
            .iter()
            .chain(WITH_VALUE)
            .filter(|f| text.starts_with(**f))
            .max_by_key(|f| f.len());
        if let Some(flag) = split {
            let is_path = WITH_PATH.contains(flag);
            let attached = &word.as_bytes()[flag.len()..];
            let value: OsString = if attached.is_empty() {
                match args.get(i) {
                    Some(next) if !is_candidate(next) => {
                        i += 1;
                        next.clone()
                    }
                    _ => continue,
                }
            } else {
                OsStr::from_bytes(attached).to_os_string()
            };
            out.push(OsString::from(*flag));
            out.push(match is_path {
                true => absolute_from(base, &value),
                false => value,
            });
            continue;
        }
        let kept = text.starts_with("-std=")
            || text.starts_with("--std=")
            || text == "-ansi"
            || text == "-nostdinc"
            || text == "-nostdinc++"
            || text == "-pthread"
            || text == "-fopenmp"
            || text.starts_with("-O")
            || (text.starts_with("-m") && text != "-mllvm");
        if kept {
            out.push(word.clone());
        }
    }
    out
}

fn absolute_from(base: &Path, value: &OsStr) -> OsString {
    let path = Path::new(value);
    match path.is_absolute() {
        true => value.to_os_string(),
        false => base.join(path).into_os_string(),
    }
}

/// The command's words with every relative path of an include flag made absolute from `base`,
/// and `-iquote base` first: the original then finds its local headers from any directory.
pub fn with_headers_from(argv: &[OsString], base: &Path) -> Vec<OsString> {
    let Some((program, args)) = argv.split_first() else {
        return argv.to_vec();
    };
    let mut out = vec![program.clone(), "-iquote".into(), base.into()];
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        let text = word.to_string_lossy();
        let flag = WITH_PATH
            .iter()
            .filter(|f| text.starts_with(**f))
            .max_by_key(|f| f.len());
        match flag {
            Some(flag) if text.len() > flag.len() => {
                let value = OsStr::from_bytes(&word.as_bytes()[flag.len()..]);
                let mut joined = OsString::from(*flag);
                joined.push(absolute_from(base, value));
                out.push(joined);
            }
            Some(_) if i < args.len() && !is_candidate(&args[i]) => {
                out.push(word.clone());
                out.push(absolute_from(base, &args[i]));
                i += 1;
            }
            _ => out.push(word.clone()),
        }
    }
    out
}

/// The preprocessor's command: the compiler, the kept flags, `-E -P`, the input, `-o out`.
pub fn preprocess_command(
    compiler: &OsStr,
    args: &[OsString],
    input: &Path,
    out: &Path,
) -> Vec<OsString> {
    let base = input.parent().unwrap_or(Path::new("/"));
    let mut argv = vec![compiler.to_os_string()];
    argv.extend(preprocessor_flags(args, base));
    argv.extend(["-E".into(), "-P".into(), input.into(), "-o".into()]);
    argv.push(out.into());
    argv
}

/// Runs the preprocessor's command (see [`preprocess_command`]) from the input's directory,
/// stdin from `/dev/null`: `Ok` with the preprocessed bytes, or `Err` with what went wrong in
/// one line (the exit status and the first error line).
pub fn run_preprocessor(argv: &[OsString], cwd: &Path, out: &PathBuf) -> Result<Vec<u8>, String> {
    let output = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&argv[0]).display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("no output");
        let status = match output.status.code() {
            Some(code) => format!("exited {code}"),
            None => "was killed by a signal".into(),
        };
        return Err(format!("{status}: {}", line.trim()));
    }
    std::fs::read(out).map_err(|e| format!("cannot read its output {}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    fn text(words: &[OsString]) -> String {
        words
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn compilers_by_name_version_and_target() {
        for yes in [
            "gcc",
            "g++",
            "clang",
            "clang++",
            "cc",
            "c++",
            "gcc-12",
            "clang++-14",
            "g++-12.2",
            "/usr/bin/clang-14",
            "x86_64-linux-gnu-g++-12",
            "aarch64-linux-gnu-gcc",
        ] {
            assert!(is_compiler(OsStr::new(yes)), "{yes}");
        }
        for no in [
            "gcc-ar",
            "clang-format",
            "clang-tidy-14",
            "python3",
            "./target",
            "ccache",
            "rustc",
            "g++-",
            "",
        ] {
            assert!(!is_compiler(OsStr::new(no)), "{no}");
        }
    }

    #[test]
    fn local_includes_are_found_system_ones_are_not() {
        assert!(includes_local_header(b"int a;\n#include \"x.h\"\n"));
        assert!(includes_local_header(b"  #  include   \"sub/x.h\"\n"));
        assert!(!includes_local_header(b"#include <stdio.h>\nint main;\n"));
        assert!(!includes_local_header(b"// include \"x.h\"\n"));
    }

    #[test]
    fn the_preprocessor_keeps_what_changes_its_output_with_absolute_paths() {
        let args = words(
            "-std=c++17 -O2 -Wall -g -c @@ -o /dev/null -I inc -Ilib -I/abs -DX=1 -D Y -UZ -include pre.h -isystem sys -iquote q -x c++ -march=native -mllvm -foo -fsyntax-only",
        );
        let flags = preprocessor_flags(&args, Path::new("/src"));
        assert_eq!(
            text(&flags),
            "-std=c++17 -O2 -I /src/inc -I /src/lib -I /abs -D X=1 -D Y -U Z -include /src/pre.h -isystem /src/sys -iquote /src/q -x c++ -march=native"
        );
        let argv = preprocess_command(
            OsStr::new("g++"),
            &words("-std=c++17 -c @@"),
            Path::new("/src/a.cc"),
            Path::new("/tmp/out.i"),
        );
        assert_eq!(text(&argv), "g++ -std=c++17 -E -P /src/a.cc -o /tmp/out.i");
    }

    #[test]
    fn the_original_finds_its_headers_from_anywhere() {
        let argv = words("gcc -Iinc -I sub -c @@ -o /dev/null");
        assert_eq!(
            text(&with_headers_from(&argv, Path::new("/src"))),
            "gcc -iquote /src -I/src/inc -I /src/sub -c @@ -o /dev/null"
        );
    }
}
