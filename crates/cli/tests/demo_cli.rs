//! The bundled example (`examples/control_flow.ptx`, what `cargo run --release`
//! runs): its 64 outputs against an independent model of the kernel written
//! from the PTX manual's semantics of each construct, in both scheduling
//! modes; and the no-argument run's report.

use std::process::{Command, Output};

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env("NO_COLOR", "1")
        .output()
        .expect("the ptxsim binary runs")
}

/// What thread `t` stores, following the kernel step by step.
fn model(t: u32) -> u32 {
    // setp.lt / setp.ne.and / not.pred / selp / guarded add
    let q = t != 0 && t < 32;
    let x = if q { t } else { 27 + 1 };
    // Collatz steps, with break at n <= 1 and at more than 100 steps
    let (mut n, mut steps) = (x, 0u32);
    while n > 1 {
        steps += 1;
        if steps > 100 {
            break;
        }
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
    }
    let mut acc = steps;
    // brx.idx over CASE0..CASE2 with index t % 3
    acc += [1000, 2000, 3000][(t % 3) as usize];
    // halve_or_zero(t & 3): 0 stays 0 (early ret), else a right shift
    acc += (t & 3) >> 1;
    // indirect call: even threads call twice(t), odd ones plus_seven(t)
    let r = if t & 1 == 0 { t << 1 } else { t + 7 };
    acc = acc.wrapping_add(r.wrapping_mul(10000));
    // threads with t % 8 == 7 store 7 and exit before the barrier
    if t % 8 == 7 {
        7
    } else {
        acc
    }
}

#[test]
fn bundled_example_matches_the_model_in_both_modes() {
    let expected: Vec<u64> = (0..64).map(|t| model(t) as u64).collect();
    // Thread 0 by hand: x = 28, whose Collatz sequence takes 18 steps; CASE0
    // adds 1000; halve_or_zero(0) = 0; twice(0) = 0.
    assert_eq!(expected[0], 1018);
    for mode in ["stack", "its"] {
        let out = ptxsim(&[
            "run",
            "examples/control_flow.ptx",
            "--kernel",
            "control_flow",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "u32[64]=zeros",
            "--json",
            "--scheduling",
            mode,
        ]);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
        let got: Vec<u64> = v["buffers"][0]["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|x| x.as_u64().expect("u32 value"))
            .collect();
        assert_eq!(got, expected, "{mode}");
    }
}

#[test]
fn no_arguments_runs_the_example_and_reports() {
    let out = ptxsim(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "== --scheduling stack",
        "== --scheduling its",
        "arg0 u32[64] = [1018, ",
        "SIMT efficiency:",
        "divergent branches:",
        "Both reconvergence models give the same results",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}
