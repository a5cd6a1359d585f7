//! The layering of `src/`, checked: every top-level module of the crate has a place in
//! [`LAYERS`], and a module imports only modules below it (so there is no cycle between them);
//! inside a module, no two files import each other, however far round.
//! Test code (`mod tests { .. }` blocks and files only compiled for tests) may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers from the top down. A module may use `crate::X` only for an X further down this
/// list. This order is the architecture: change it here, on purpose, or not at all.
const LAYERS: &[&str] = &[
    "app",       // one run: command line, the run's files, one file / many files, report
    "schedule",  // the table of passes and what runs after what
    "passes",    // the rewrite passes, one file each
    "engine",    // the loop, the speculation behind -j, the test pipeline
    "edits",     // a pass's edits as units of the loop
    "policy",    // the reduction algorithms, pure
    "tree",      // parse trees, tokens, rendering
    "lang",      // everything about one language, one file each
    "exec",      // one test run: forms, conditions, runner, launcher, capture
    "store",     // what a run keeps on disk
    "report",    // progress, counters, summary, trace
    "signature", // failure signatures from a run's output
    "exit",      // exit codes
    "signal",    // the interrupt flag
    "memory",    // how the heap is given back to the system
];

/// Imports against the order that are allowed, each with why (none today).
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files compiled only for tests: `#[cfg(test)]` then (maybe `#[path = "x.rs"]`) `mod name;`.
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let dir = match file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            true => file.parent().unwrap().to_path_buf(),
            false => file.with_extension(""),
        };
        for (i, line) in lines.iter().enumerate() {
            if *line != "#[cfg(test)]" {
                continue;
            }
            let mut j = i + 1;
            let mut path = None;
            if let Some(p) = lines.get(j).and_then(|l| l.strip_prefix("#[path = \"")) {
                path = Some(p.trim_end_matches("\"]").to_string());
                j += 1;
            }
            let Some(name) = lines
                .get(j)
                .and_then(|l| l.strip_prefix("mod "))
                .and_then(|l| l.strip_suffix(';'))
            else {
                continue;
            };
            match path {
                Some(p) => out.insert(file.parent().unwrap().join(p)),
                None => {
                    out.insert(dir.join(format!("{name}.rs")));
                    out.insert(dir.join(name).join("mod.rs"))
                }
            };
        }
    }
    out
}

/// The code of a file that is not test code: comments and a trailing `mod tests { .. }` out.
fn non_test_code(text: &str) -> String {
    let end = text
        .find("\n#[cfg(test)]\nmod tests {")
        .unwrap_or(text.len());
    text[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::X` the code names.
fn crate_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `mycrate::`
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.insert(name);
    }
    out
}

/// (from module, to module) -> the files that make the arrow.
fn arrows() -> BTreeMap<(String, String), BTreeSet<String>> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let tests = test_only_files(&files);
    let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap();
        if tests.contains(file) || rel.components().count() == 1 && module_of(rel).is_none() {
            continue;
        }
        let Some(from) = module_of(rel) else { continue };
        let code = non_test_code(&fs::read_to_string(file).unwrap());
        for to in crate_modules(&code) {
            if to != from {
                arrows
                    .entry((from.clone(), to))
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    arrows
}

/// The top-level module a file belongs to (`None`: lib.rs, main.rs).
fn module_of(rel: &Path) -> Option<String> {
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

fn rank(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| *l == module)
        .unwrap_or_else(|| panic!("module {module} has no layer: add it to LAYERS"))
}

#[test]
fn every_module_of_the_crate_has_a_layer() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(!declared.is_empty());
    for module in &declared {
        rank(module);
    }
    for layer in LAYERS {
        assert!(
            declared.contains(layer),
            "{layer} is in LAYERS but not in lib.rs"
        );
    }
}

#[test]
fn imports_go_down_the_layers() {
    let mut wrong = Vec::new();
    for ((from, to), files) in arrows() {
        if rank(&from) < rank(&to) {
            continue;
        }
        if EXCEPTIONS.iter().any(|(a, b, _)| *a == from && *b == to) {
            continue;
        }
        wrong.push(format!(
            "{from} -> {to} (in {})",
            Vec::from_iter(files).join(", ")
        ));
    }
    assert!(
        wrong.is_empty(),
        "imports against the layer order (see LAYERS in tests/integration/architecture.rs):\n  {}",
        wrong.join("\n  ")
    );
    assert!(EXCEPTIONS.len() <= 5, "at most 5 exceptions");
}

#[test]
fn no_cycle_between_modules() {
    let arrows = arrows();
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        next.entry(from).or_default().push(to);
    }
    // depth-first search for a back edge
    fn visit<'a>(
        m: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        state.insert(m, 1);
        path.push(m);
        for &n in next.get(m).into_iter().flatten() {
            match state.get(n) {
                Some(1) => {
                    let start = path.iter().position(|&p| p == n).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(n);
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(n, next, state, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    let mut state = BTreeMap::new();
    for &m in next.keys() {
        if !state.contains_key(m) {
            let cycle = visit(m, &next, &mut state, &mut Vec::new());
            assert!(
                cycle.is_none(),
                "an import cycle: {}",
                cycle.unwrap().join(" -> ")
            );
        }
    }
}

/// A file's module path (`engine/tester/adapters.rs` -> `engine::tester::adapters`; a
/// `mod.rs` is its folder).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The module paths a file's code names: `crate::a::b::c` and `super::x` (resolved from
/// `here`), and each item of a `{..}` group after them. Not every path is a file: the caller
/// keeps the longest prefix that is.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts = |w: &str| bytes[i..].iter().take(w.len()).copied().eq(w.chars());
        let before_ok = i == 0 || !ident(bytes[i - 1]) && bytes[i - 1] != ':';
        let (mut base, skip) = if before_ok && starts("crate::") {
            (Vec::new(), "crate::".len())
        } else if before_ok && starts("super::") {
            let mut base = here.to_vec();
            let mut j = i;
            while bytes[j..].iter().take(7).copied().eq("super::".chars()) {
                base.pop();
                j += 7;
            }
            (base, j - i)
        } else {
            i += 1;
            continue;
        };
        i += skip;
        // a path of segments, then maybe a group
        loop {
            let seg: String = bytes[i..].iter().take_while(|c| ident(**c)).collect();
            if seg.is_empty() {
                break;
            }
            i += seg.len();
            base.push(seg);
            if bytes[i..].iter().take(2).copied().eq("::".chars()) {
                i += 2;
            } else {
                break;
            }
        }
        if bytes.get(i) == Some(&'{') {
            let end = bytes[i..]
                .iter()
                .position(|&c| c == '}')
                .map_or(bytes.len(), |e| i + e);
            let group: String = bytes[i + 1..end].iter().collect();
            for item in group.split(',') {
                let mut path = base.clone();
                path.extend(
                    item.split("::")
                        .map(|s| s.trim().to_string())
                        .take_while(|s| !s.is_empty() && s.chars().all(ident)),
                );
                out.push(path);
            }
            i = end;
        }
        out.push(base);
    }
    out
}

/// File -> the files it imports, within the crate (test code out).
fn file_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let tests = test_only_files(&files);
    let by_module: BTreeMap<Vec<String>, String> = files
        .iter()
        .filter(|f| !tests.contains(*f))
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap();
            (module_path(rel), rel.display().to_string())
        })
        .collect();
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &by_module {
        let code = non_test_code(&fs::read_to_string(root.join(file)).unwrap());
        for mut path in named_paths(&code, module) {
            while !path.is_empty() && !by_module.contains_key(&path) {
                path.pop();
            }
            // a module's own file and its parents (whose `mod` lines declare it) are no import
            if path.is_empty() || module.starts_with(&path) {
                continue;
            }
            arrows
                .entry(file.clone())
                .or_default()
                .insert(by_module[&path].clone());
        }
    }
    arrows
}

#[test]
fn no_cycle_between_files() {
    let arrows = file_arrows();
    assert!(arrows.len() > 50, "the checker reads the files' imports");
    // a cycle: a file that reaches itself
    for start in arrows.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, vec![start])];
        while let Some((f, path)) = stack.pop() {
            for next in arrows.get(f).into_iter().flatten() {
                assert!(
                    next != start,
                    "an import cycle between files: {} -> {start}",
                    path.join(" -> ")
                );
                if seen.insert(next.as_str()) {
                    let mut p = path.clone();
                    p.push(next);
                    stack.push((next, p));
                }
            }
        }
    }
}

#[test]
fn the_file_checker_resolves_crate_super_and_groups() {
    let here = ["engine".to_string(), "tester".into(), "adapters".into()];
    let found = named_paths(
        "use crate::exec::{runner::Outcome, check};\nuse super::super::pool::Ticket;\n",
        &here,
    );
    let found: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "exec::runner::Outcome",
            "exec::check",
            "exec",
            "engine::pool::Ticket"
        ]
    );
}

#[test]
fn the_checker_sees_an_upward_import() {
    // the parsing the tests above rely on
    let code = non_test_code(
        "use crate::tree::Unit;\n// use crate::app::x;\nfn f() { crate::exec::run(); }\n#[cfg(test)]\nmod tests {\n    use crate::app::cli;\n}\n",
    );
    let found: Vec<String> = crate_modules(&code).into_iter().collect();
    assert_eq!(found, ["exec", "tree"]);
    assert!(rank("app") < rank("tree"));
}
