//! The token counts of the pass table and the summary: counted once per text
//! ([`super::trees::Trees`]), and the run's first text's by its first parse's thread, which
//! the first steps do not wait for.

use super::{COUNT_TOKENS_MAX_BYTES, Driver};

impl Driver<'_> {
    /// The tokens of the run's first text, counted by its first parse.
    pub fn early_tokens(&mut self) -> Option<usize> {
        self.trees.early_tokens()
    }

    /// The best text's tokens before a step, for its row; `None` for the first text, whose
    /// count is its parse thread's last work: asked for after the step ([`Self::tokens_settled`]),
    /// so that the step does not wait for it.
    pub(super) fn tokens_before(&mut self) -> Option<usize> {
        match self.trees.is_early(&self.tester.best) {
            true => None,
            false => Some(self.tokens()),
        }
    }

    /// What [`Self::tokens_before`] counted, or the first text's count (of `bytes` bytes).
    pub(super) fn tokens_settled(&mut self, before: Option<usize>, bytes: usize) -> usize {
        match before {
            Some(tokens) => tokens,
            None if bytes <= COUNT_TOKENS_MAX_BYTES => self.trees.early_tokens().unwrap_or(0),
            None => 0,
        }
    }

    /// Tokens of the best text, as the summary counts them; 0 above [`COUNT_TOKENS_MAX_BYTES`].
    pub(super) fn tokens(&mut self) -> usize {
        if self.tester.best.len() > COUNT_TOKENS_MAX_BYTES {
            return 0;
        }
        self.trees.tokens(&self.tester.best).unwrap_or(0)
    }
}
