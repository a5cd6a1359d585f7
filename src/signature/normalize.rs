//! Text normalisation shared by the families: what reduction or a rerun changes (addresses,
//! numbers, names in quotes, paths) is masked so the same bug gives the same text. Each family
//! picks what to mask: a compiler's own function and source line stay, a user's names do not.

use std::borrow::Cow;

/// A raw output line as text: lossy UTF-8, without terminal escapes (colours, hyperlinks) or a
/// trailing `\r`.
pub fn clean_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.strip_suffix('\r').unwrap_or(&text);
    if !text.contains('\x1b') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            // CSI: ESC [ parameters final-byte
            Some('[') => {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() || c == '~' {
                        break;
                    }
                }
            }
            // OSC (GCC's hyperlinks): ESC ] ... BEL or ESC \
            Some(']') => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// At most `max` characters; a cut line ends with `…`.
pub fn clip(text: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let end = text.char_indices().nth(max - 1).map_or(0, |(i, _)| i);
            format!("{}…", &text[..end])
        }
    }
}

/// `0x7ffe1234` -> `0x_`.
pub fn mask_hex(text: &str) -> Cow<'_, str> {
    if !text.contains("0x") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'0'
            && bytes.get(i + 1) == Some(&b'x')
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            && (i == 0 || !is_word(bytes[i - 1]))
        {
            let mut j = i + 2;
            while j < bytes.len() && bytes[j].is_ascii_hexdigit() {
                j += 1;
            }
            out.push_str("0x_");
            i = j;
        } else {
            let c = text[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(c);
            i += c.len_utf8();
        }
    }
    Cow::Owned(out)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Standalone decimal numbers (`42`, `3.14`, `1.2.3`) -> `N`; digits inside a name (`crc32`,
/// `E0308`, `sse4.2` after a name) stay.
pub fn mask_numbers(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let after_name = i > 0
            && (is_word(bytes[i - 1]) || (bytes[i - 1] == b'.' && i > 1 && is_word(bytes[i - 2])));
        if b.is_ascii_digit() && !after_name {
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            while j + 1 < bytes.len() && bytes[j] == b'.' && bytes[j + 1].is_ascii_digit() {
                j += 1;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j < bytes.len() && is_word(bytes[j]) {
                out.push_str(&text[i..j]);
            } else {
                out.push('N');
            }
            i = j;
        } else {
            let c = text[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// What closes a quote that `open` opens.
fn closers(open: char) -> Option<&'static [char]> {
    Some(match open {
        '\'' => &['\''],
        '"' => &['"'],
        '‘' => &['’'],
        '“' => &['”'],
        '«' => &['»'],
        // `name` (rustc, Markdown) and `name' (older GCC)
        '`' => &['`', '\''],
        _ => return None,
    })
}

/// Quoted text -> `'_'`, whatever the quotes (GCC's follow the locale). An apostrophe inside a
/// word (`can't`) opens nothing; an unclosed quote is left as it is.
pub fn mask_quoted(text: &str, keep_backticks: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens = closers(c).filter(|_| {
            !(keep_backticks && c == '`') && (i == 0 || !chars[i - 1].is_alphanumeric())
        });
        if let Some(close) = opens
            && let Some(len) = chars[i + 1..].iter().position(|x| close.contains(x))
        {
            out.push_str("'_'");
            i += len + 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Paths (`/tmp/x/calc.py`, `./a/b`, `src/lib/x.rs` and URLs: a word with a leading `/`, `./`,
/// `../` or `~/`, or with two `/`) -> `<path>`: a candidate runs in another directory. A bare
/// file name (`input.c`) cannot be told from a dotted name (`java.lang.Error`) and stays.
pub fn mask_paths(text: &str) -> String {
    let words = text.split(' ').map(|word| {
        let bare = word.trim_end_matches([':', ',', ';', '.', ')']);
        let is_path = ["/", "./", "../", "~/"]
            .iter()
            .any(|p| bare.starts_with(p) && bare.len() > p.len())
            || bare.matches('/').count() >= 2;
        match is_path {
            true => format!("<path>{}", &word[bare.len()..]),
            false => word.to_string(),
        }
    });
    words.collect::<Vec<_>>().join(" ")
}

/// Runs of spaces -> one space, trimmed.
pub fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A message as it identifies a kind of failure: addresses, quoted names and numbers masked.
pub fn message(text: &str) -> String {
    squeeze(&mask_numbers(&mask_quoted(
        &mask_hex(&mask_paths(&squeeze(text))),
        false,
    )))
}

/// Like [`message`], but code in backticks stays (a Rust panic's `Option::unwrap()`).
pub fn message_keeping_code(text: &str) -> String {
    squeeze(&mask_numbers(&mask_quoted(
        &mask_hex(&mask_paths(&squeeze(text))),
        true,
    )))
}

/// The last component of a path.
pub fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The function's name in a frame's text: what comes before its argument list or location, with
/// template arguments kept (`ns::Foo<int (*)()>::bar(int) const (lib.so+0x1)` -> `ns::Foo<int
/// (*)()>::bar`). `None` for an empty name or an unnamed frame (`(lib.so+0x1)`).
pub fn function_name(text: &str) -> Option<String> {
    const ANON: &str = "(anonymous namespace)";
    let text = text.trim_start();
    let mut name = String::new();
    let mut rest = text;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        if depth == 0 && rest.starts_with(ANON) {
            name.push_str(ANON);
            rest = &rest[ANON.len()..];
            continue;
        }
        if name.ends_with("operator") {
            // operator(), operator<<, operator-> ...: the operator is part of the name
            let op: String = match rest.starts_with("()") {
                true => "()".to_string(),
                false => rest
                    .chars()
                    .take_while(|c| "<>=!+-*/%&|^~[],".contains(*c))
                    .collect(),
            };
            if !op.is_empty() {
                name.push_str(&op);
                rest = &rest[op.len()..];
                continue;
            }
        }
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' | ' ' | '\t' if depth == 0 => break,
            _ => {}
        }
        name.push(c);
        rest = &rest[c.len_utf8()..];
    }
    let name = strip_rust_hash(&name).to_string();
    (!name.is_empty()).then_some(name)
}

/// `calc::main::h0123456789abcdef` -> `calc::main` (a Rust symbol's hash changes per build).
pub fn strip_rust_hash(name: &str) -> &str {
    match name.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head
        }
        _ => name,
    }
}

/// The first words of a message, up to `max` and before the first masked, quoted or bracketed
/// one:
/// `shift exponent N is too large` -> `shift exponent`; a word ending in `:` is the last.
pub fn leading_words(text: &str, max: usize) -> String {
    let mut words = Vec::new();
    for word in text.split_whitespace().take(max) {
        if word == "N"
            || word.starts_with(['\'', '"', '[', '(', '{'])
            || word.contains("'_'")
            || word.contains("0x_")
        {
            break;
        }
        match word.strip_suffix(':') {
            Some(last) => {
                words.push(last);
                break;
            }
            None => words.push(word),
        }
    }
    words.join(" ")
}

/// A file-name-safe slug: lowercase ASCII letters, digits and single dashes, at most 48 bytes.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    if out.len() >= 48 {
        // cut at the last whole word
        out.truncate(out.rfind('-').unwrap_or(out.len()));
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "failure".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_names_stay_and_others_are_masked() {
        assert_eq!(
            mask_numbers("index 7 of len 3, crc32.32.32, E0308, 3.14 and 1.2.3, x86_64 -N"),
            "index N of len N, crc32.32.32, E0308, N and N, x86_64 -N"
        );
        assert_eq!(
            mask_hex("at 0x602000000018 pc 0x7f (0xab)"),
            "at 0x_ pc 0x_ (0x_)"
        );
    }

    #[test]
    fn quotes_of_every_style_are_masked_but_apostrophes_are_not() {
        assert_eq!(
            mask_quoted("can't find 'foo' or ‘bar’ or \"baz\" or `q' or `r`", false),
            "can't find '_' or '_' or '_' or '_' or '_'"
        );
        assert_eq!(
            mask_quoted("called `Option::unwrap()` on 'x'", true),
            "called `Option::unwrap()` on '_'"
        );
        assert_eq!(mask_quoted("unclosed 'quote", false), "unclosed 'quote");
    }

    #[test]
    fn function_names_lose_arguments_and_locations_only() {
        for (frame, name) in [
            (
                "clang::Sema::Check(clang::Decl const*, int) const (/lib/libclang.so+0x1)",
                "clang::Sema::Check",
            ),
            (
                "clang::TreeTransform<(anonymous namespace)::T>::Go(int) Foo.cpp:0:0",
                "clang::TreeTransform<(anonymous namespace)::T>::Go",
            ),
            (
                "(anonymous namespace)::X86DAGToDAGISel::Select(llvm::SDNode*)",
                "(anonymous namespace)::X86DAGToDAGISel::Select",
            ),
            (
                "llvm::function_ref<void ()>::callback_fn<F>(long) (/lib/x)",
                "llvm::function_ref<void ()>::callback_fn<F>",
            ),
            ("Foo::operator()(int) const", "Foo::operator()"),
            ("std::operator<<(std::ostream&, int)", "std::operator<<"),
            ("set_name /tmp/x/target.c:36", "set_name"),
            ("calc::main::h0123456789abcdef", "calc::main"),
        ] {
            assert_eq!(function_name(frame).as_deref(), Some(name), "{frame}");
        }
        assert_eq!(
            function_name("(/lib/x86_64-linux-gnu/libc.so.6+0x3c050)"),
            None
        );
    }

    #[test]
    fn paths_are_masked_but_dotted_names_are_not() {
        assert_eq!(
            message(
                "open /tmp/x/in.c: see https://gcc.gnu.org/bugs, ./a/b and src/x/y.rs; java.lang.Error in a/b"
            ),
            "open <path>: see <path>, <path> and <path>; java.lang.Error in a/b"
        );
    }

    #[test]
    fn escapes_are_stripped() {
        let raw = b"\x1b[01m\x1b[Kx.c:1:2:\x1b[m\x1b[K warning: [\x1b]8;;https://gcc.gnu.org/x\x07-Wfoo\x1b]8;;\x07]\r";
        assert_eq!(clean_line(raw), "x.c:1:2: warning: [-Wfoo]");
    }

    #[test]
    fn clip_and_slug_are_bounded() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        assert_eq!(
            slug("asan heap-buffer-overflow"),
            "asan-heap-buffer-overflow"
        );
        assert_eq!(slug("%%"), "failure");
        assert!(slug(&"a b ".repeat(100)).len() <= 48);
        assert_eq!(
            slug(&"word ".repeat(20)),
            "word-word-word-word-word-word-word-word-word"
        );
        assert_eq!(
            leading_words("shift exponent N is too large", 4),
            "shift exponent"
        );
        assert_eq!(
            leading_words("runtime error: index out of range", 4),
            "runtime error"
        );
        assert_eq!(
            leading_words("index out of range [N] with length N", 5),
            "index out of range"
        );
    }
}
