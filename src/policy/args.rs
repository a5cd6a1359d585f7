//! `--reduce-args`: the test's command line as a list to reduce, once the input is reduced.
//!
//! The arguments after the program are cut into units: one argument, or an option that takes
//! its value as the next argument (`-o FILE`, `-I DIR`, `-x c++`, `-include FILE`, ...) with that
//! value. A unit holding `@@` (the candidate) is fixed; the others are reduced with ddmin (the
//! empty list first: many failures need no flag at all) to a 1-minimal list, in their order.
//! Then every optimisation level left is lowered a step at a time (`-Ofast` -> `-O3` -> `-O2`
//! -> `-O1` -> `-O0`; `-Os`, `-Oz` -> `-O1`; `-Og` -> `-O0`): each lower level that still fails
//! is kept, one that does not is skipped, and a final `-O0` (the compilers' default) is dropped
//! if the failure stays.
//!
//! The test is a closure (`Some(verdict)`, or `None` when the run must stop: interrupted, no
//! budget left): pure, no I/O here.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use super::ddmin::Ddmin;
use super::{Policy, Unit, subtract};

/// Options whose value is the next argument (GCC's and clang's, and a few linkers').
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-L",
    "-l",
    "-x",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-Xclang",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-mllvm",
    "-target",
    "-arch",
    "--param",
];

/// One unit of the list: an argument, or an option and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Item {
    words: Vec<OsString>,
    /// Holds `@@`: never removed or changed.
    fixed: bool,
}

fn has_candidate(word: &OsStr) -> bool {
    word.as_bytes().windows(2).any(|w| w == b"@@")
}

/// The arguments (after the program) as units.
fn items(args: &[OsString]) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let takes = word.to_str().is_some_and(|w| TAKES_VALUE.contains(&w));
        let end = if takes && i + 1 < args.len() {
            i + 2
        } else {
            i + 1
        };
        let words = args[i..end].to_vec();
        let fixed = words.iter().any(|w| has_candidate(w));
        out.push(Item { words, fixed });
        i = end;
    }
    out
}

/// What the reduction did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgsReduced {
    /// The arguments after the program, reduced.
    pub args: Vec<OsString>,
    /// Test runs made.
    pub tests: u64,
    /// It was stopped before its end (the list is the best so far).
    pub stopped: bool,
}

/// The next lower optimisation level for `word`, if it is one (`None`: not a level, or `-O0`).
pub fn lower_level(word: &str) -> Option<&'static str> {
    let level = word.strip_prefix("-O")?;
    Some(match level {
        "fast" => "-O3",
        "3" => "-O2",
        "2" | "s" | "z" => "-O1",
        "1" | "" | "g" => "-O0",
        digits if digits.len() < 4 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            match digits.parse::<u32>() {
                Ok(n) if n > 3 => "-O3",
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Reduces `args` (the words after the program) while `test` says the command still fails the
/// same way. See the module doc.
pub fn reduce_args(
    args: &[OsString],
    test: &mut dyn FnMut(&[OsString]) -> Option<bool>,
) -> ArgsReduced {
    let items = items(args);
    let mut tests = 0;
    let mut ask = |list: &[Item]| -> Option<bool> {
        tests += 1;
        test(&flatten(list))
    };
    let free: Vec<usize> = (0..items.len()).filter(|&i| !items[i].fixed).collect();
    // the configuration: which free items are kept (indices into `free`)
    let build = |items: &[Item], kept: &[Unit]| -> Vec<Item> {
        items
            .iter()
            .enumerate()
            .filter(|(i, item)| item.fixed || kept.iter().any(|&k| free[k as usize] == *i))
            .map(|(_, item)| item.clone())
            .collect()
    };
    let mut config: Vec<Unit> = (0..free.len() as Unit).collect();
    let mut stopped = false;
    if !config.is_empty() {
        match ask(&build(&items, &[])) {
            Some(true) => config.clear(),
            Some(false) => {}
            None => stopped = true,
        }
    }
    'passes: while !stopped && config.len() > 1 {
        let mut ddmin = Ddmin;
        let deltas: Vec<Vec<Unit>> = ddmin.propose(&config).collect();
        for delta in deltas {
            let candidate = subtract(&config, &delta);
            if candidate.is_empty() {
                continue; // asked first
            }
            match ask(&build(&items, &candidate)) {
                Some(true) => {
                    config = candidate;
                    continue 'passes;
                }
                Some(false) => {}
                None => {
                    stopped = true;
                    break 'passes;
                }
            }
        }
        break;
    }
    // a list of one: ddmin proposes nothing, the empty list was asked
    let mut list = build(&items, &config);
    // lower each optimisation level a step at a time
    let mut i = 0;
    while !stopped && i < list.len() {
        let level = match (&list[i].fixed, list[i].words.as_slice()) {
            (false, [word]) => word.to_str().map(String::from),
            _ => None,
        };
        let Some(mut current) = level.filter(|w| lower_level(w).is_some() || w == "-O0") else {
            i += 1;
            continue;
        };
        let mut tried = current.clone();
        while let Some(lower) = lower_level(&tried) {
            tried = lower.to_string();
            let mut candidate = list.clone();
            candidate[i].words = vec![OsString::from(lower)];
            match ask(&candidate) {
                Some(true) => {
                    list = candidate;
                    current = lower.to_string();
                }
                Some(false) => {}
                None => {
                    stopped = true;
                    break;
                }
            }
        }
        if !stopped && current == "-O0" {
            let mut candidate = list.clone();
            candidate.remove(i);
            match ask(&candidate) {
                Some(true) => {
                    list = candidate;
                    continue; // the next item is at i now
                }
                Some(false) => {}
                None => stopped = true,
            }
        }
        i += 1;
    }
    ArgsReduced {
        args: flatten(&list),
        tests,
        stopped,
    }
}

fn flatten(list: &[Item]) -> Vec<OsString> {
    list.iter().flat_map(|i| i.words.iter().cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A test that fails when every `needed` word is there and (if given) the level is at
    /// least `min_level`.
    fn needs<'a>(
        needed: &'a [&'a str],
        min_level: Option<u32>,
        runs: &'a mut Vec<String>,
    ) -> impl FnMut(&[OsString]) -> Option<bool> + 'a {
        move |args: &[OsString]| {
            let line = text(args);
            runs.push(line.clone());
            let all = needed
                .iter()
                .all(|n| args.iter().any(|a| a.to_str() == Some(*n)));
            let level = args
                .iter()
                .filter_map(|a| a.to_str()?.strip_prefix("-O")?.parse::<u32>().ok())
                .next_back()
                .unwrap_or(0);
            Some(all && min_level.is_none_or(|m| level >= m))
        }
    }

    #[test]
    fn flags_the_failure_does_not_need_go_and_the_candidate_stays() {
        let mut runs = Vec::new();
        let args = words("-std=c++17 -O2 -Wall -g -c @@ -o /dev/null");
        let done = reduce_args(&args, &mut needs(&["-std=c++17", "-c"], None, &mut runs));
        assert_eq!(text(&done.args), "-std=c++17 -c @@");
        assert!(!done.stopped);
        assert_eq!(done.tests as usize, runs.len());
        assert!(runs.iter().all(|run| run.contains("@@")), "{runs:?}");
    }

    #[test]
    fn nothing_needed_takes_one_run() {
        let mut runs = Vec::new();
        let args = words("-O3 -Wall -g @@");
        let done = reduce_args(&args, &mut needs(&[], None, &mut runs));
        assert_eq!(text(&done.args), "@@");
        assert_eq!(done.tests, 1);
    }

    #[test]
    fn an_option_and_its_value_go_together() {
        let mut runs = Vec::new();
        let args = words("-I inc -o /dev/null -x c++ -std=c++20 @@");
        let done = reduce_args(&args, &mut needs(&["c++"], None, &mut runs));
        assert_eq!(text(&done.args), "-x c++ @@");
        // never a candidate with a value torn from its option
        for run in &runs {
            let w: Vec<&str> = run.split(' ').collect();
            for (i, word) in w.iter().enumerate() {
                if *word == "/dev/null" || *word == "inc" {
                    assert!(i > 0 && (w[i - 1] == "-o" || w[i - 1] == "-I"), "{run}");
                }
            }
        }
    }

    #[test]
    fn levels_are_lowered_as_far_as_the_failure_allows() {
        let mut runs = Vec::new();
        let args = words("-O3 -Wall @@");
        let done = reduce_args(&args, &mut needs(&[], Some(1), &mut runs));
        assert_eq!(text(&done.args), "-O1 @@");
        let mut runs = Vec::new();
        let done = reduce_args(&words("-O3 @@"), &mut needs(&[], Some(3), &mut runs));
        assert_eq!(text(&done.args), "-O3 @@");
        // a level that is needed only as "some -O" is lowered to -O0 and then dropped: the
        // failure here needs -g and no level at all
        let mut runs = Vec::new();
        let done = reduce_args(&words("-O2 -g @@"), &mut needs(&["-g"], None, &mut runs));
        assert_eq!(text(&done.args), "-g @@");
    }

    #[test]
    fn a_level_that_fails_is_skipped_for_a_lower_one_that_works() {
        // fails at -O3 and -O1, not at -O2 (and not without a level)
        let mut test = |args: &[OsString]| Some(args.iter().any(|a| a == "-O3" || a == "-O1"));
        let done = reduce_args(&words("-O3 @@"), &mut test);
        assert_eq!(text(&done.args), "-O1 @@");
    }

    #[test]
    fn the_ladder() {
        assert_eq!(lower_level("-Ofast"), Some("-O3"));
        assert_eq!(lower_level("-O3"), Some("-O2"));
        assert_eq!(lower_level("-O2"), Some("-O1"));
        assert_eq!(lower_level("-O1"), Some("-O0"));
        assert_eq!(lower_level("-O"), Some("-O0"));
        assert_eq!(lower_level("-Os"), Some("-O1"));
        assert_eq!(lower_level("-Og"), Some("-O0"));
        assert_eq!(lower_level("-O9"), Some("-O3"));
        assert_eq!(lower_level("-O0"), None);
        assert_eq!(lower_level("-Wall"), None);
        assert_eq!(lower_level("-Oxyz"), None);
    }

    #[test]
    fn a_stop_keeps_the_best_so_far() {
        let mut left = 3;
        let mut test = |args: &[OsString]| {
            left -= 1;
            (left >= 0).then(|| args.iter().any(|a| a == "-a"))
        };
        let args = words("-a -b -c -d -e -f @@");
        let done = reduce_args(&args, &mut test);
        assert!(done.stopped);
        assert!(done.args.iter().any(|a| a == "-a") && done.args.iter().any(|a| a == "@@"));
    }

    #[test]
    fn every_word_with_the_candidate_is_fixed() {
        let mut runs = Vec::new();
        let args = words("--in=@@ -v -o @@.out");
        let done = reduce_args(&args, &mut needs(&[], None, &mut runs));
        assert_eq!(text(&done.args), "--in=@@ -o @@.out");
    }
}
