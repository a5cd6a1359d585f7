//! Units and names of the keep-closure pass for text no grammar covers, when its names carry
//! sigils (LLVM IR's `@f`, `%struct.T`, `#0`, `!12`): the items are the runs of lines that start
//! at bracket depth 0 and end when the depth is back to 0 (a `define ... { ... }` is one item).
//! An item declares the first sigil name of its first line (`@f` in `define i32 @f(ptr %p) #0 {`,
//! `%struct.T` in `%struct.T = type {..}`, `#0` in `attributes #0 = {..}`) and uses every other
//! sigil name in it. Names nobody declares (a function's `%0`) link nothing. Blank lines stay,
//! and so do the items that declare nothing (`target datalayout = ".."`): they stay fixed.
//!
//! A function definition (`define .. @f(..) .. {` to `}`) is two units, as C functions are in
//! the split run of the C pass: the whole item, which declares `@f` and uses what its first line
//! names, and its body, which uses `@f` and what the body names: without it the item becomes
//! `declare .. @f(..) ..` (no linkage such as `internal`, which declarations cannot have, no
//! `comdat`). So a table of function pointers keeps only declarations of the functions it
//! lists, not every body and all they reach.

use std::collections::HashMap;

use super::closure::Units;
use crate::edits::Edit;
use crate::policy::closure::Deps;

/// Sigils that start a name.
const SIGILS: &[u8] = b"@%!#$";
/// Fewer items declaring a name than this: the text has no sigil names to speak of.
const MIN_DECLARING_ITEMS: usize = 3;

/// The units of `src`, or `None` when too few items declare a sigil name.
pub fn units(src: &[u8]) -> Option<Units> {
    let mut ids: HashMap<&[u8], u32> = HashMap::new();
    let (mut hunks, mut uses, mut declares) = (Vec::new(), Vec::new(), Vec::new());
    let mut fixed = Vec::new();
    let mut declaring = 0;
    for (start, end) in items(src) {
        let first_line_end = src[start..end]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(end, |i| start + i);
        let names = names_in(src, start, end);
        // the first name of the first line is declared; the others are used, by the first
        // line (the head) or by the rest (the body)
        let declared = names.iter().position(|&(at, _)| at < first_line_end);
        let (mut decl, mut head, mut body) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &(at, name)) in names.iter().enumerate() {
            let side = match (Some(i) == declared, at < first_line_end) {
                (true, _) => &mut decl,
                (false, true) => &mut head,
                (false, false) => &mut body,
            };
            side.push(intern(&mut ids, name));
        }
        declaring += usize::from(!decl.is_empty());
        // an item that declares nothing (`target datalayout = ".."`) may set up the whole
        // file: it stays (a comment line does not)
        if decl.is_empty() && src[start] != b';' {
            fixed.push(hunks.len() as u32);
        }
        let declaration = declaration_of(&src[start..first_line_end]).filter(|_| !decl.is_empty());
        let Some(declaration) = declaration else {
            hunks.push(vec![Edit::delete(start, end)]);
            uses.push(sorted([head, body].concat()));
            declares.push(decl);
            continue;
        };
        // the head uses what its first line names; the body the rest, and the head
        hunks.push(vec![Edit::delete(start, end)]);
        uses.push(sorted(head));
        body.extend_from_slice(&decl);
        declares.push(decl);
        // short of the item's last byte (its newline), so that the item's deletion, which is
        // longer, contains it
        hunks.push(vec![Edit::new(start, end - 1, &declaration)]);
        uses.push(sorted(body));
        declares.push(Vec::new());
    }
    if declaring < MIN_DECLARING_ITEMS {
        return None;
    }
    Some(Units {
        deps: Deps::new(&uses, &declares, ids.len()),
        hunks,
        fixed,
    })
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v.dedup();
    v
}

/// Linkage words a declaration cannot have.
const DEFINITION_ONLY: &[&[u8]] = &[
    b"private",
    b"internal",
    b"available_externally",
    b"linkonce",
    b"weak",
    b"common",
    b"appending",
    b"linkonce_odr",
    b"weak_odr",
];

/// `define internal i32 @f(ptr %p) #0 comdat {` -> `declare i32 @f(ptr %p) #0`; `None` when
/// `line` is no one-line function head.
fn declaration_of(line: &[u8]) -> Option<Vec<u8>> {
    let rest = line.strip_prefix(b"define ")?;
    let rest = rest.trim_ascii_end().strip_suffix(b"{")?;
    let mut out = b"declare".to_vec();
    for w in rest.split(|&c| c == b' ').filter(|w| !w.is_empty()) {
        if DEFINITION_ONLY.contains(&w) || w == b"comdat" || w.starts_with(b"comdat(") {
            continue;
        }
        out.push(b' ');
        out.extend_from_slice(w);
    }
    Some(out)
}

fn intern<'s>(ids: &mut HashMap<&'s [u8], u32>, name: &'s [u8]) -> u32 {
    let next = ids.len() as u32;
    *ids.entry(name).or_insert(next)
}

/// The byte ranges of the items: a line that starts at bracket depth 0 with a non-blank
/// character opens one; it ends with the first line end where the depth is back to 0.
fn items(src: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i64;
    let mut start: Option<usize> = None;
    let mut line_start = 0;
    let mut in_string = false;
    for (i, &c) in src.iter().enumerate() {
        if start.is_none() && depth == 0 && i == line_start && !c.is_ascii_whitespace() {
            start = Some(i);
        }
        match c {
            b'"' => in_string = !in_string,
            b'(' | b'[' | b'{' if !in_string => depth += 1,
            b')' | b']' | b'}' if !in_string => depth = (depth - 1).max(0),
            b'\n' => {
                in_string = false;
                line_start = i + 1;
                if depth == 0
                    && let Some(s) = start.take()
                {
                    out.push((s, i + 1));
                }
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, src.len()));
    }
    out
}

/// The sigil names in `src[start..end]` with their offsets: a sigil then name characters (or a
/// quoted name, `@"a b"`), outside strings and `;` comments.
fn names_in(src: &[u8], start: usize, end: usize) -> Vec<(usize, &[u8])> {
    let word = |c: u8| c.is_ascii_alphanumeric() || b"-$._".contains(&c);
    let mut out = Vec::new();
    let mut i = start;
    let mut in_string = false;
    while i < end {
        let c = src[i];
        if c == b'\n' {
            in_string = false;
        } else if c == b'"' {
            in_string = !in_string;
        } else if c == b';' && !in_string {
            // a comment to the end of the line
            while i < end && src[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if !in_string
            && SIGILS.contains(&c)
            && (i == start || !word(src[i - 1]))
            && i + 1 < end
        {
            let mut j = i + 1;
            if src[j] == b'"' {
                j += 1;
                while j < end && src[j] != b'"' && src[j] != b'\n' {
                    j += 1;
                }
                j = (j + 1).min(end);
            } else {
                while j < end && word(src[j]) {
                    j += 1;
                }
            }
            if j > i + 1 {
                out.push((i, &src[i..j]));
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::EditSpace;
    use crate::engine::{FnOracle, reduce};
    use crate::policy::closure::KeepClosure;
    use std::rc::Rc;

    const IR: &str = "; ModuleID = 'x'\ntarget triple = \"x86_64\"\n%struct.S = type { i32, ptr }\n\n@.str = private constant [3 x i8] c\"hi\\00\"\n@unused = global i32 0\n\ndeclare i32 @puts(ptr)\n\ndefine i32 @helper(ptr %s) #0 {\nentry:\n  %0 = load i32, ptr %s ; uses %struct.S? no\n  ret i32 %0\n}\n\ndefine i32 @main() #0 {\n  %x = alloca %struct.S\n  %r = call i32 @helper(ptr %x)\n  %p = call i32 @puts(ptr @.str)\n  ret i32 %r\n}\n\nattributes #0 = { noinline }\n";

    fn keep(src: &str, needle: &str) -> String {
        let u = units(src.as_bytes()).expect("sigil names");
        let mut space = EditSpace::new(src.as_bytes().to_vec());
        space.next_layer(&[], u.hunks);
        let mut policy = KeepClosure::new(Rc::new(u.deps), 8).with_roots(u.fixed);
        let mut oracle = FnOracle(|c: &[crate::policy::Unit]| {
            String::from_utf8_lossy(&space.render(c)).contains(needle)
        });
        let config = reduce(space.all_units(), &mut oracle, &mut policy);
        String::from_utf8(space.render(&config)).unwrap()
    }

    #[test]
    fn a_function_keeps_what_it_names_and_nothing_else() {
        let out = keep(IR, "call i32 @helper");
        for kept in [
            "%struct.S = type",
            "@.str",
            "declare i32 @puts",
            "define i32 @main",
            // nothing needs its body: a declaration stands for it
            "declare i32 @helper(ptr %s) #0\n",
        ] {
            assert!(out.contains(kept), "{kept} in {out}");
        }
        assert!(out.contains("attributes #0"), "{out}");
        assert!(
            !out.contains("@unused") && !out.contains("ModuleID"),
            "{out}"
        );
        assert!(out.contains("target triple"), "{out}");
    }

    #[test]
    fn a_leaf_function_needs_only_its_attributes() {
        let out = keep(IR, "define i32 @helper");
        assert!(!out.contains("@main") && !out.contains("@puts"), "{out}");
        assert!(out.contains("attributes #0"), "{out}");
    }

    #[test]
    fn a_declaration_has_no_linkage_and_no_comdat() {
        let d = declaration_of(b"define internal fastcc i32 @f(ptr noundef %0) #3 comdat {");
        assert_eq!(
            d.as_deref(),
            Some(&b"declare fastcc i32 @f(ptr noundef %0) #3"[..])
        );
        assert!(declaration_of(b"@g = internal global i32 0").is_none());
    }

    #[test]
    fn text_without_sigil_names_has_no_units() {
        assert!(units(b"(assert (> x 0))\n(check-sat)\n").is_none());
    }

    #[test]
    fn items_span_brackets_across_lines() {
        let src = b"a = { 1,\n  2 }\n\n  b\nc\n";
        let got: Vec<&[u8]> = items(src).iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(got, [&b"a = { 1,\n  2 }\n"[..], b"c\n"]);
    }
}
