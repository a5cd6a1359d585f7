//! Ctrl-C, SIGTERM, SIGHUP and SIGQUIT handling for a running reduction.
//!
//! [`install`] replaces the default SIGINT and SIGTERM actions with a handler that only records
//! that a signal arrived (two atomic stores, which is async-signal-safe). The reduction loop and
//! the oracle poll [`interrupted`] and wind down on their own: the oracle kills the running test
//! script's process group, and the reducer keeps the best interesting candidate it has.
//! [`signal_number`] tells which signal it was, so the caller can exit with `128 + signal`.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signal handler: stores only, nothing else is async-signal-safe enough to do here.
extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::SeqCst);
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the recording handler for SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT:
/// each ends the run the same way, with the best result kept and the summary printed.
pub fn install() -> io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        install_one(signal)?;
    }
    Ok(())
}

fn install_one(signal: libc::c_int) -> io::Result<()> {
    let handler = on_signal as extern "C" fn(libc::c_int);
    // SAFETY: an all-zero `sigaction` is a valid value; the handler only touches atomics; the
    // pointers passed to `sigemptyset` and `sigaction` are valid for the duration of the calls.
    let rc = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut())
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether SIGINT or SIGTERM arrived since start-up (or the last [`reset`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The number of the last signal received, if any.
pub fn signal_number() -> Option<i32> {
    if !interrupted() {
        return None;
    }
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Forgets any received signal. For tests.
pub fn reset() {
    INTERRUPTED.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
}

/// Records `signal` as if the handler had run. Test-only.
#[cfg(test)]
pub(crate) fn simulate(signal: i32) {
    on_signal(signal);
}

/// Serializes tests against the global flag: tests that set it take the write lock, tests that
/// merely run scripts (and would see a stray flag as an interrupt) take the read lock.
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Takes [`TEST_LOCK`] for writing, surviving a poisoned lock.
#[cfg(test)]
pub(crate) fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    TEST_LOCK.write().unwrap_or_else(|e| e.into_inner())
}

/// Takes [`TEST_LOCK`] for reading, surviving a poisoned lock.
#[cfg(test)]
pub(crate) fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    TEST_LOCK.read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` with the real handlers installed, then puts the previous actions back so the
    /// test harness keeps its default Ctrl-C behavior.
    fn with_installed_handlers(f: impl FnOnce()) {
        let signals = [libc::SIGINT, libc::SIGTERM];
        // SAFETY: zeroed sigaction values are valid out-parameters.
        let mut old: [libc::sigaction; 2] = unsafe { std::mem::zeroed() };
        for (signal, slot) in signals.iter().zip(old.iter_mut()) {
            // SAFETY: querying the current action into a valid out-pointer.
            assert_eq!(
                unsafe { libc::sigaction(*signal, std::ptr::null(), slot) },
                0
            );
        }
        install().unwrap();
        f();
        for (signal, slot) in signals.iter().zip(old.iter()) {
            // SAFETY: restoring an action previously returned by the kernel.
            assert_eq!(
                unsafe { libc::sigaction(*signal, slot, std::ptr::null_mut()) },
                0
            );
        }
    }

    #[test]
    fn a_raised_sigterm_is_recorded_with_its_number() {
        let _guard = exclusive();
        reset();
        with_installed_handlers(|| {
            // SAFETY: raising a signal whose handler is installed.
            assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
            assert!(interrupted());
            assert_eq!(signal_number(), Some(libc::SIGTERM));
        });
        reset();
    }

    #[test]
    fn reset_clears_the_flag_and_the_number() {
        let _guard = exclusive();
        simulate(libc::SIGINT);
        assert!(interrupted());
        assert_eq!(signal_number(), Some(libc::SIGINT));
        reset();
        assert!(!interrupted());
        assert_eq!(signal_number(), None);
    }
}
