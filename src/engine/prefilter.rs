//! The prefilter's parse, off the thread that feeds the workers. With `-j` above 1 a tree or
//! edit candidate goes to a test worker with a [`Check`]: the worker re-parses it first, publishes
//! its error count, and runs the test only if it parses no worse than its baseline (the
//! configuration it would replace: its parent's candidate, whose count another worker
//! publishes, or the current best). A cached verdict is applied only after that, as on the
//! feeding thread: the prefilter always comes first, so the verdict of a candidate is the same
//! whichever runs happened before (and whatever `-j` is).
//!
//! Each worker keeps its own parser ([`Checker`]); the counts of one oracle's candidates live in
//! one [`Shared`], keyed by ticket.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use crate::tree::render::Splice;
use crate::tree::reparse::RoundText;
use crate::tree::ts::Reparse;

/// A test run's number: the pool's jobs and the prefilter's checks are keyed by it.
pub type Ticket = u64;

pub use crate::tree::reparse::MakeChecker;

/// What the workers share for one oracle: the base text of incremental re-parses, and the error
/// count of every candidate checked so far.
pub struct Shared {
    make: MakeChecker,
    /// The round's text and tree (`None`: candidates are parsed from scratch); `id` tells
    /// bases apart.
    base: Option<RoundText>,
    id: u64,
    errors: Mutex<HashMap<Ticket, Option<usize>>>,
    published: Condvar,
}

impl Shared {
    pub fn new(make: MakeChecker, base: Option<RoundText>) -> Arc<Shared> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Arc::new(Shared {
            make,
            base,
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            errors: Mutex::new(HashMap::new()),
            published: Condvar::new(),
        })
    }

    /// `ticket`'s error count (`None` inside: it could not be parsed), once published.
    pub fn get(&self, ticket: Ticket) -> Option<Option<usize>> {
        self.lock().get(&ticket).copied()
    }

    /// Records `ticket`'s error count and wakes the workers waiting for it.
    pub fn publish(&self, ticket: Ticket, errors: Option<usize>) {
        self.lock().insert(ticket, errors);
        self.published.notify_all();
    }

    /// Waits until `ticket`'s count is published. The ticket was handed to a worker before any
    /// check that waits for it, and every check publishes (see [`Check::answer`]).
    fn wait(&self, ticket: Ticket) -> Option<usize> {
        let mut map = self.lock();
        loop {
            if let Some(&e) = map.get(&ticket) {
                return e;
            }
            map = self.published.wait(map).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Ticket, Option<usize>>> {
        self.errors.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a candidate must not parse worse than.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Known when the candidate was started (`None`: no comparison).
    Value(Option<usize>),
    /// The count of the parent's candidate, published by the worker that checks it; `on_none`
    /// when that one could not be parsed.
    Parent {
        ticket: Ticket,
        on_none: Option<usize>,
    },
}

/// A candidate's prefilter question, answered by the worker that gets it.
pub struct Check {
    pub shared: Arc<Shared>,
    pub ticket: Ticket,
    /// The changes from the base (`None`: a parse from scratch).
    pub splices: Option<Vec<Splice>>,
    pub baseline: Baseline,
}

/// A worker's parser, kept across jobs (and re-based when a job brings another base).
#[derive(Default)]
pub struct Checker {
    parser: Option<Box<dyn Reparse>>,
    base_id: u64,
}

impl Check {
    /// Parses `candidate`, publishes its count and says whether it parses worse than its
    /// baseline (`true`: skip it, a known "no"). Publishes even if the parse panics, so that
    /// no worker waits forever for a parent.
    pub fn answer(&self, checker: &mut Checker, candidate: &[u8]) -> bool {
        struct Publish<'a>(&'a Check, Option<usize>);
        impl Drop for Publish<'_> {
            fn drop(&mut self) {
                self.0.shared.publish(self.0.ticket, self.1);
            }
        }
        let mut publish = Publish(self, None);
        publish.1 = self.errors(checker, candidate);
        let mine = publish.1;
        drop(publish);
        let baseline = match self.baseline {
            Baseline::Value(v) => v,
            Baseline::Parent { ticket, on_none } => self.shared.wait(ticket).or(on_none),
        };
        matches!((mine, baseline), (Some(e), Some(b)) if e > b)
    }

    fn errors(&self, checker: &mut Checker, candidate: &[u8]) -> Option<usize> {
        if checker.parser.is_none() {
            checker.parser = (self.shared.make)().ok();
            checker.base_id = 0;
        }
        let parser = checker.parser.as_mut()?;
        match (&self.splices, &self.shared.base) {
            (Some(splices), Some(base)) => {
                if checker.base_id != self.shared.id {
                    parser.set_base(base);
                    checker.base_id = self.shared.id;
                }
                parser.errors_edited(candidate, splices)
            }
            _ => parser.errors(candidate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts `(` without a `)`: enough of a parser to test the protocol.
    struct Parens;
    impl Reparse for Parens {
        fn errors(&mut self, src: &[u8]) -> Option<usize> {
            let open = src.iter().filter(|&&c| c == b'(').count();
            let close = src.iter().filter(|&&c| c == b')').count();
            Some(open.abs_diff(close))
        }
    }

    fn shared() -> Arc<Shared> {
        Shared::new(Arc::new(|| Ok(Box::new(Parens) as Box<dyn Reparse>)), None)
    }

    fn check(shared: &Arc<Shared>, ticket: Ticket, baseline: Baseline) -> Check {
        Check {
            shared: shared.clone(),
            ticket,
            splices: None,
            baseline,
        }
    }

    #[test]
    fn a_candidate_worse_than_its_value_baseline_is_skipped_and_its_count_published() {
        let s = shared();
        let mut c = Checker::default();
        assert!(check(&s, 1, Baseline::Value(Some(0))).answer(&mut c, b"f(("));
        assert_eq!(s.get(1), Some(Some(2)));
        assert!(!check(&s, 2, Baseline::Value(Some(2))).answer(&mut c, b"f(("));
        assert!(!check(&s, 3, Baseline::Value(None)).answer(&mut c, b"(((("));
    }

    #[test]
    fn a_child_compares_with_its_parent_published_by_another_thread() {
        let s = shared();
        let parent = check(&s, 10, Baseline::Value(Some(9)));
        let child = check(
            &s,
            11,
            Baseline::Parent {
                ticket: 10,
                on_none: Some(0),
            },
        );
        // the child starts first and waits for the parent's count (1)
        let waiter = std::thread::spawn(move || {
            let mut c = Checker::default();
            (child.answer(&mut c, b"(("), child.answer(&mut c, b"("))
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!parent.answer(&mut Checker::default(), b"g("));
        assert_eq!(waiter.join().unwrap(), (true, false));
    }

    #[test]
    fn an_unparsable_parent_falls_back_to_on_none() {
        let s = Shared::new(Arc::new(|| anyhow::bail!("no parser")), None);
        let mut c = Checker::default();
        assert!(!check(&s, 1, Baseline::Value(Some(0))).answer(&mut c, b"(("));
        assert_eq!(s.get(1), Some(None));
        let child = Baseline::Parent {
            ticket: 1,
            on_none: Some(3),
        };
        // no parser: the child's own count is unknown too, so nothing is skipped
        assert!(!check(&s, 2, child).answer(&mut c, b"(((("));
    }
}
