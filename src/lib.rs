//! gpucc: a source-to-source polyhedral compiler from sequential C loop nests to CUDA.
//!
//! The pipeline (see `DESIGN.md` in the shared folder, and the README): each stage is a module
//! with one documented entry point, and [`cli`] is the driver that calls them in order.
//!
//! - [`frontend`]: C file → [`frontend::Unit`]s (AST in arenas, with spans).
//! - [`poly`]: unit → [`poly::Program`] (iteration domains, access relations and schedule as
//!   isl objects; the only module that touches isl directly).
//! - [`deps`]: program → [`deps::Dependences`] (isl flow analysis, loop classification).

pub mod arena;
pub mod cli;
pub mod codegen;
pub mod cuda;
pub mod deps;
pub mod device;
pub mod diag;
pub mod emulator;
pub mod frontend;
pub mod gpu;
pub mod limits;
pub mod poly;
pub mod recipe;
pub mod strategy;
pub mod transform;
pub mod tune;
pub mod verify;
