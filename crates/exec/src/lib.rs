//! ptxsim-exec: the SIMT engine.

#![forbid(unsafe_code)]
