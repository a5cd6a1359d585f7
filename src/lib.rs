//! `reduce`: a test-case reducer. The library holds the reduction core (`reduce`), the parse tree
//! (`tree`) and the adapters the binary wires together; the binary is a thin front end.

pub mod reduce;
pub mod tree;
