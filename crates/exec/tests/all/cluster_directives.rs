//! Compile-time cluster shape (PTX ISA 11.5 "Cluster Dimension
//! Directives"): a kernel declared `.reqnctapercluster X,Y,Z` (nvcc's
//! `__cluster_dims__`) runs in clusters of that shape when the launch
//! gives none, and a different shape at launch is a launch error;
//! `.explicitcluster` needs a cluster shape from one of the two;
//! `.maxclusterrank N` bounds the CTAs of a cluster. The kernels are
//! accepted by ptxas 12.9 for sm_90.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, TrapKind};

/// Each CTA writes its `%cluster_nctarank`, `%is_explicit_cluster`,
/// `%cluster_ctarank`, and (through `mapa` to rank 1, then a cluster
/// barrier) the rank rank 1 stored in its shared word.
fn kernel(directives: &str) -> String {
    format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {directives}
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 4 .b32 w;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %cluster_ctarank;
    st.shared.u32 [w], %r1;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mov.u32 %r2, w;
    mapa.shared::cluster.u32 %r3, %r2, 1;
    ld.shared::cluster.u32 %r4, [%r3];
    mov.u32 %r5, %cluster_nctarank;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r6, 1, 0, %p1;
    mov.u32 %r7, %ctaid.x;
    mul.wide.u32 %rd2, %r7, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {{%r5, %r6, %r1, %r4}};
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}}
"#
    )
}

fn launch(directives: &str, ctas: u32, cluster: Option<u32>) -> Result<Vec<[u32; 4]>, ptxsim_exec::RunError> {
    let mut dev = Device::new();
    let m = dev.load_named("k.ptx", &kernel(directives)).unwrap_or_else(|e| panic!("{e}"));
    let out = dev.alloc(16 * ctas as u64).unwrap();
    let mut cfg = LaunchConfig::new(ctas, 32u32);
    cfg.cluster = cluster.map(|c| Dim3::new(c, 1, 1));
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)])?;
    let b = dev.read(out, 16 * ctas as u64).unwrap();
    Ok(b.chunks_exact(16).map(|c| std::array::from_fn(|i| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()))).collect())
}

#[test]
fn reqnctapercluster_gives_the_launch_its_clusters() {
    for d in [".explicitcluster .reqnctapercluster 2, 1, 1", ".reqnctapercluster 2"] {
        for given in [None, Some(2)] {
            let out = launch(d, 4, given).unwrap_or_else(|e| panic!("`{d}` launched with cluster {given:?}: {e}"));
            for (b, w) in out.iter().enumerate() {
                // Two CTAs per cluster, explicit, rank b % 2, and rank 1's word is 1.
                assert_eq!(*w, [2, 1, b as u32 % 2, 1], "`{d}`, cluster {given:?}: CTA {b}");
            }
        }
    }
}

#[test]
fn a_different_shape_at_launch_is_an_error() {
    let e = launch(".reqnctapercluster 2, 1, 1", 4, Some(4)).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
    assert!(e.message.contains(".reqnctapercluster 2,1,1"), "{e}");
    let e = launch(".reqnctapercluster 2, 1, 1", 4, Some(1)).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
}

#[test]
fn explicitcluster_needs_a_shape() {
    let e = launch(".explicitcluster", 4, None).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
    assert!(e.message.contains(".explicitcluster"), "{e}");
    assert_eq!(launch(".explicitcluster", 4, Some(2)).unwrap()[3], [2, 1, 1, 1]);
}

#[test]
fn maxclusterrank_bounds_the_cluster() {
    let e = launch(".maxclusterrank 2", 8, Some(4)).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
    assert!(e.message.contains(".maxclusterrank 2"), "{e}");
    assert_eq!(launch(".maxclusterrank 2", 8, Some(2)).unwrap()[5], [2, 1, 1, 1]);
}
