//! The rewrite passes, one file each: every pass lists edits of the current text from its tree
//! (see [`crate::edits::Pass`]); the schedule (`crate::schedule`) decides when each runs. A new
//! pass is a file here and a line in the schedule's table.

pub mod arrays;
pub mod cascade;
pub mod closure;
pub mod debris;
pub mod exports;
pub mod fields;
pub mod flatten;
pub mod globals;
pub mod hoist;
pub mod indent;
pub mod inline;
pub mod keywords;
pub mod layout;
pub mod locals;
pub mod merge;
pub mod methods;
pub mod names;
pub mod pairs;
pub mod params;
pub mod pointers;
pub mod rename;
pub mod returns;
pub mod shapes;
pub mod sigils;
pub mod smallest;
pub mod subsets;
pub mod unifdef;
pub mod windows;

#[cfg(test)]
mod cpp_tests;
#[cfg(test)]
mod lang_tests;
#[cfg(test)]
mod tests;
