//! The loop's next call, seen from the end of this one: the candidates it will try first, so
//! that the chain can start their tests while this call's last tests still run (`chain.rs`).
//! The driver knows what it runs next; an adapter asks it once per configuration this call
//! might end with.

use super::Tester;
use crate::engine::Prefetched;
use crate::engine::odds::delta_key;
use crate::policy::Unit;

/// The first candidates (their bytes, in the order the next call tries them while they fail)
/// of the call that follows a call ending with `text`, whose configuration in this call's
/// units is `config`. Empty when the driver cannot tell.
pub type Next<'a> = Box<dyn FnMut(&[u8], &[Unit]) -> Vec<Vec<u8>> + 'a>;

/// An adapter's view of the next call.
pub struct Ahead<'a> {
    next: Next<'a>,
    /// The last configuration asked about (by key), and its next call's candidates.
    last: Option<(u64, Vec<Vec<u8>>)>,
}

impl<'a> Ahead<'a> {
    /// A view for an adapter over `tester`: none at `-j1`, which never prefetches.
    pub fn of(tester: &Tester, next: Next<'a>) -> Option<Self> {
        (tester.width() > 1).then_some(Ahead { next, last: None })
    }

    /// An adapter's [`crate::engine::Oracle::prefetch`]: the `k`-th candidate of the call after
    /// `config` (`render`: its text), if the adapter knows the next call.
    pub fn prefetch(
        ahead: &mut Option<Self>,
        tester: &mut Tester,
        config: &[Unit],
        k: usize,
        render: impl FnOnce() -> Vec<u8>,
    ) -> Prefetched {
        let Some(ahead) = ahead.as_mut() else {
            return Prefetched::Exhausted;
        };
        ahead.start(tester, config, k, render)
    }

    fn start(
        &mut self,
        tester: &mut Tester,
        config: &[Unit],
        k: usize,
        render: impl FnOnce() -> Vec<u8>,
    ) -> Prefetched {
        let key = delta_key(config);
        if self.last.as_ref().is_none_or(|(h, _)| *h != key) {
            let list = (self.next)(&render(), config);
            self.last = Some((key, list));
        }
        match self.last.as_ref().and_then(|(_, list)| list.get(k)) {
            Some(candidate) => tester.prefetch(candidate),
            None => Prefetched::Exhausted,
        }
    }
}
