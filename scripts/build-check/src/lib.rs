//! Nothing to link: this crate exists for its build script, which checks that the tools
//! isl's build needs are installed and says plainly what is missing. gpucc depends on it
//! so that Cargo runs the check (it has no dependencies of its own) before isl-rs's build
//! script, whose own failure is a page of autotools output.
