//! One integration binary that runs the real `reduce` executable on real files and scripts.

mod architecture;
mod clash;
mod cli;
mod cluster;
mod codes;
mod completions;
mod crash;
mod examples;
mod failure;
mod golden;
mod hygiene;
mod multi;
mod pipes;
mod props;
mod resume;
mod rewrites;
mod runner;
mod safety;
mod shapes;
mod speed;
mod store;
mod util;
