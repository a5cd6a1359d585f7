//! One integration binary that runs the real `reduce` executable on real files and scripts.

mod cli;
mod cluster;
mod completions;
mod crash;
mod golden;
mod props;
mod speed;
mod util;
