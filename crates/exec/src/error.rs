//! Run-time errors: the trap kinds (stable snake_case names the CLI prints),
//! and the located error value every API call returns.

use std::fmt;

/// What went wrong. [`TrapKind::as_str`] gives the stable name used in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapKind {
    BrxIndexOutOfRange,
    BadCallTarget,
    PrototypeMismatch,
    OutOfBounds,
    Misaligned,
    BarrierDeadlock,
    NonUniform,
    FuelExhausted,
    CallDepth,
    Trap,
    DivideByZero,
    Unsupported,
    StackDeadlock,
    InvalidLaunch,
    LoadError,
    /// A memory limit of [`crate::Limits`] was reached: a device allocation
    /// past `max_device_bytes`, or a thread's local memory (call frames)
    /// past `local_bytes_per_thread`.
    OutOfMemory,
    /// The launch ran past its wall-clock limit (`LaunchConfig::timeout`).
    Timeout,
    /// A shared-memory access overlapped the destination of a `cp.async`
    /// that its thread had not waited for yet (`datapath/asynccopy.rs`).
    AsyncCopyRace,
    /// A register read that a `wgmma.mma_async` not yet waited for
    /// (`wgmma.commit_group` + `wgmma.wait_group`) writes: its accumulator
    /// (`copies.rs`).
    WgmmaRace,
    /// A device `free` of a pointer that is not a live block of the device
    /// heap: never returned by `malloc`, or freed already (`heap.rs`).
    BadFree,
}

impl TrapKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TrapKind::BrxIndexOutOfRange => "brx_index_out_of_range",
            TrapKind::BadCallTarget => "bad_call_target",
            TrapKind::PrototypeMismatch => "prototype_mismatch",
            TrapKind::OutOfBounds => "out_of_bounds",
            TrapKind::Misaligned => "misaligned",
            TrapKind::BarrierDeadlock => "barrier_deadlock",
            TrapKind::NonUniform => "non_uniform",
            TrapKind::FuelExhausted => "fuel_exhausted",
            TrapKind::CallDepth => "call_depth",
            TrapKind::Trap => "trap",
            TrapKind::DivideByZero => "divide_by_zero",
            TrapKind::Unsupported => "unsupported",
            TrapKind::StackDeadlock => "stack_deadlock",
            TrapKind::InvalidLaunch => "invalid_launch",
            TrapKind::LoadError => "load_error",
            TrapKind::OutOfMemory => "out_of_memory",
            TrapKind::Timeout => "timeout",
            TrapKind::AsyncCopyRace => "async_copy_race",
            TrapKind::WgmmaRace => "wgmma_race",
            TrapKind::BadFree => "bad_free",
        }
    }
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A located error. Fields that do not apply are `None` (a load error has no
/// CTA; a barrier deadlock has no single lane).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub kind: TrapKind,
    pub message: String,
    /// The function the failing instruction belongs to.
    pub function: Option<String>,
    /// 1-based source line.
    pub line: Option<u32>,
    /// Byte span of the instruction in the source.
    pub span: Option<(u32, u32)>,
    pub cta: Option<[u32; 3]>,
    /// Warp index within the CTA.
    pub warp: Option<u32>,
    pub lane: Option<u32>,
    /// What the kernel printed before the error (`printf`, failed
    /// assertions), when the launch collected it.
    pub stdout: crate::stdout::Printed,
}

impl RunError {
    pub fn new(kind: TrapKind, message: impl Into<String>) -> RunError {
        RunError { kind, message: message.into(), function: None, line: None, span: None, cta: None, warp: None, lane: None, stdout: Default::default() }
    }

    pub fn with_lane(mut self, lane: Option<u32>) -> RunError {
        if self.lane.is_none() {
            self.lane = lane;
        }
        self
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let Some(l) = self.line {
            write!(f, " (line {l}")?;
            if let Some(func) = &self.function {
                write!(f, ", in `{func}`")?;
            }
            if let Some(c) = self.cta {
                write!(f, ", CTA ({},{},{})", c[0], c[1], c[2])?;
            }
            if let Some(w) = self.warp {
                write!(f, ", warp {w}")?;
            }
            if let Some(l) = self.lane {
                write!(f, ", lane {l}")?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

impl std::error::Error for RunError {}

/// A trap raised inside the engine before its location is attached.
#[derive(Clone, Debug)]
pub struct Trap {
    pub kind: TrapKind,
    pub message: String,
    pub lane: Option<u32>,
}

impl Trap {
    pub fn new(kind: TrapKind, message: impl Into<String>) -> Trap {
        Trap { kind, message: message.into(), lane: None }
    }

    pub fn lane(kind: TrapKind, lane: u32, message: impl Into<String>) -> Trap {
        Trap { kind, message: message.into(), lane: Some(lane) }
    }
}
