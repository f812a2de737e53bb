//! The integration tests of ptxsim-exec, as one test binary (it links the
//! crate once): one module per subject, sharing the helpers of
//! `corpus_launch` (corpus launches for the golden, Numba, Triton, RDC and
//! survey tests) and `support` (`words`: one-warp kernels over a table of
//! words; `corpus_specs`: the corpus kernels' launch specifications, also
//! included by `crates/sass` and `examples/export_corpus_launches.rs`).
//!
//! Run one subject with `cargo test -p ptxsim-exec --test all -- NAME::`.

mod corpus_launch;

/// What `corpus_launch` does to each module it loads: nothing here (the
/// interpreter runs it); `ptxsim-jit`'s tests attach the compiling tier.
fn tier_hook(_: &mut ptxsim_exec::Module) {}

mod support {
    pub mod corpus_specs;
    pub mod fuzz_gen;
    pub mod words;
}

mod atom_cas_b16;
mod atom_f32_subnormal;
mod atom_vector;
mod bulk_copy;
mod cluster_directives;
mod const_expr;
mod cooperative;
mod corpus_golden;
mod corpus_modes;
mod corpus_numba;
mod corpus_rdc;
mod corpus_survey;
mod corpus_triton;
mod cvt_u64_range;
mod datapath;
mod device_heap;
mod dsmem;
mod engine;
mod float_kernels;
mod gpu_recorded;
mod griddep;
mod hopper;
mod int128_div;
mod isa_bits;
mod isa_fma_relu;
mod isa_half_warp;
mod isa_mma_m8n8k16;
mod isa_modifiers;
mod half_rounding;
mod isa_halfcmp;
mod isa_minmax3;
mod isa_packed16;
mod isa_prmt;
mod isa_cvt_half_modes;
mod isa_cvt_narrow;
mod isa_sat;
mod isa_scalar;
mod isa_tf32;
mod isa_video;
mod isa_video_scalar;
mod isa_wmma_int_tf32;
mod its_converge;
mod kernel_shared;
mod label_scope;
mod llvm_nvptx;
mod layers;
mod setp_const_c;
mod shape;
mod limits;
mod link;
mod mbarrier_cluster;
mod memory_cap;
mod printf;
mod shared_layout;
mod shared_window;
mod st_async;
mod short_kernels;
mod tensor_async;
mod tensor_mbarrier;
mod tensor_mma;
mod tensormap_replace;
mod tma_im2col;
mod tma_reduce;
mod unsupported_guard;
mod vector_atomicity;
mod vector_loads;
mod warp_sz;
mod worker_reuse;
