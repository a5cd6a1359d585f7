//! A panic is a bug, and even then nothing is lost: the hook kills the test processes, says in
//! one line where the best result so far is (every improvement is already on disk, and the
//! original is in `INPUT.orig`), and exits with code 1 ("internal error").

use std::sync::OnceLock;

static BEST: OnceLock<String> = OnceLock::new();

/// Where the best result lives, for the panic message (set once the output is open).
pub fn set_best_location(location: String) {
    let _ = BEST.set(location);
}

/// Replaces the default panic output (a multi-line report per thread) with one line and an exit.
pub fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        crate::exec::reaper::kill_all();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let best = BEST.get().map_or_else(
            || "nothing was changed".to_string(),
            |b| format!("the best result so far is in {b}"),
        );
        eprintln!("reduce: internal error (a bug, please report it): {what}{at}; {best}");
        std::process::exit(i32::from(crate::exit::INTERNAL));
    }));
}

/// Panics here when `REDUCE_INJECT_PANIC` names this point: lets the tests prove that a panic
/// loses nothing. Reads the variable once.
pub fn injection_point(name: &str) {
    static WANTED: OnceLock<Option<String>> = OnceLock::new();
    let wanted = WANTED.get_or_init(|| std::env::var("REDUCE_INJECT_PANIC").ok());
    if wanted.as_deref() == Some(name) {
        panic!("injected panic at {name} (REDUCE_INJECT_PANIC)");
    }
}
