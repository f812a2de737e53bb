//! The per-thread condition-code register (Z, S, C, O) and the 32 CC tests
//! of the sm_50 branch instructions, with the flag rules of the few
//! flag-writing instructions the machine form has.
//!
//! Flags are held warp-wide as four 32-bit lane masks, so every test is a
//! handful of word operations over the whole warp. The formulas are those of
//! the fact sheet (`sass-sm50-control-flow.md` §1: envytools' Tesla predicate
//! table for codes 0-15, envydis gf100/gm107 for 16-23).
//!
//! Tests with no documented meaning (24-31) follow a documented choice, not a
//! documented behaviour: in compute there is no clip state machine, so its
//! state is always "trivial accept" (CSM_TA and FCSM_TA are true, the TR and
//! MX tests false); RLE and RGT follow yuzu's guesses, `S | Z` and `!S & !Z`.

use std::fmt;

/// The four flags of every lane of a warp, one mask per flag (bit = lane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcMasks {
    pub z: u32,
    pub s: u32,
    pub c: u32,
    pub o: u32,
}

/// One lane's flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub z: bool,
    pub s: bool,
    pub c: bool,
    pub o: bool,
}

impl CcMasks {
    /// The flags of lane `l`.
    pub fn lane(&self, l: u32) -> Flags {
        let b = |m: u32| m >> l & 1 != 0;
        Flags { z: b(self.z), s: b(self.s), c: b(self.c), o: b(self.o) }
    }

    /// Sets the flags of the lanes in `mask` to `f`.
    pub fn set_lane(&mut self, l: u32, f: Flags) {
        let bit = 1u32 << l;
        let put = |m: &mut u32, v: bool| *m = if v { *m | bit } else { *m & !bit };
        put(&mut self.z, f.z);
        put(&mut self.s, f.s);
        put(&mut self.c, f.c);
        put(&mut self.o, f.o);
    }
}

macro_rules! cc_tests {
    ($($code:literal $name:ident $text:literal,)*) => {
        /// A condition-code test (the 5-bit field of BRA/BRX/JMP/JMX/SYNC/...).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum CcTest { $($name = $code,)* }

        impl CcTest {
            /// All 32 tests in code order.
            pub const ALL: [CcTest; 32] = [$(CcTest::$name,)*];

            /// The assembler spelling, without `CC.` (`T` for code 15).
            pub fn name(self) -> &'static str {
                match self { $(CcTest::$name => $text,)* }
            }

            /// The test with this assembler spelling.
            pub fn from_name(s: &str) -> Option<CcTest> {
                match s { $($text => Some(CcTest::$name),)* _ => None }
            }
        }
    };
}

cc_tests! {
    0 F "F", 1 Lt "LT", 2 Eq "EQ", 3 Le "LE", 4 Gt "GT", 5 Ne "NE", 6 Ge "GE", 7 Num "NUM",
    8 Nan "NAN", 9 Ltu "LTU", 10 Equ "EQU", 11 Leu "LEU", 12 Gtu "GTU", 13 Neu "NEU", 14 Geu "GEU", 15 T "T",
    16 Off "OFF", 17 Lo "LO", 18 Sff "SFF", 19 Ls "LS", 20 Hi "HI", 21 Sft "SFT", 22 Hs "HS", 23 Oft "OFT",
    24 CsmTa "CSM_TA", 25 CsmTr "CSM_TR", 26 CsmMx "CSM_MX", 27 FcsmTa "FCSM_TA", 28 FcsmTr "FCSM_TR",
    29 FcsmMx "FCSM_MX", 30 Rle "RLE", 31 Rgt "RGT",
}

impl CcTest {
    /// The 5-bit encoding.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(c: u8) -> Option<CcTest> {
        CcTest::ALL.get(c as usize).copied()
    }

    /// Whether the fact sheet documents this test's meaning (codes 0-23).
    pub fn documented(self) -> bool {
        self.code() < 24
    }

    /// The lanes for which the test holds, given the warp's flags.
    pub fn eval(self, f: &CcMasks) -> u32 {
        let (z, s, c, o) = (f.z, f.s, f.c, f.o);
        match self {
            CcTest::F => 0,
            CcTest::Lt => (s & !z) ^ o,
            CcTest::Eq => z & !s,
            CcTest::Le => s ^ (z | o),
            CcTest::Gt => !z & !(s ^ o),
            CcTest::Ne => !z,
            CcTest::Ge => !(s ^ o),
            CcTest::Num => !z | !s,
            CcTest::Nan => z & s,
            CcTest::Ltu => s ^ o,
            CcTest::Equ => z,
            CcTest::Leu => z | (s ^ o),
            CcTest::Gtu => !s ^ (z | o),
            CcTest::Neu => !z | s,
            CcTest::Geu => (!s | z) ^ o,
            CcTest::T => u32::MAX,
            CcTest::Off => !o,
            CcTest::Lo => !c,
            CcTest::Sff => !s,
            CcTest::Ls => z | !c,
            CcTest::Hi => c & !z,
            CcTest::Sft => s,
            CcTest::Hs => c,
            CcTest::Oft => o,
            // Documented choice: no clip state machine in compute, its state is
            // always "trivial accept".
            CcTest::CsmTa | CcTest::FcsmTa => u32::MAX,
            CcTest::CsmTr | CcTest::CsmMx | CcTest::FcsmTr | CcTest::FcsmMx => 0,
            // Documented choice: yuzu's guesses.
            CcTest::Rle => s | z,
            CcTest::Rgt => !s & !z,
        }
    }

    /// The test on one lane's flags.
    pub fn holds(self, f: Flags) -> bool {
        let m = |b: bool| if b { 1 } else { 0 };
        self.eval(&CcMasks { z: m(f.z), s: m(f.s), c: m(f.c), o: m(f.o) }) & 1 != 0
    }
}

impl fmt::Display for CcTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Flags of a 32-bit integer add `a + b + carry_in` (`IADD.CC`, `IADD.X.CC`).
/// With `extended` (`.X`), Z accumulates across the words of a multi-word
/// add: `Z = Z_old & (word == 0)` (the fact sheet's reading).
pub fn iadd_flags(a: u32, b: u32, carry_in: bool, extended: bool, z_old: bool) -> (u32, Flags) {
    let wide = a as u64 + b as u64 + carry_in as u64;
    let r = wide as u32;
    let c = wide >> 32 != 0;
    let sum = a as i32 as i64 + b as i32 as i64 + carry_in as i64;
    let o = sum < i32::MIN as i64 || sum > i32::MAX as i64;
    let z = if extended { z_old && r == 0 } else { r == 0 };
    (r, Flags { z, s: r >> 31 != 0, c, o })
}

/// Flags of a float result (`FADD.CC`): Z = zero or NaN, S = negative or NaN.
/// C and O are cleared (the fact sheet gives no float meaning for them; this is
/// the documented choice). `-0.0` is zero and not negative (`-0.0 < 0` is false).
pub fn float_flags(r: f32) -> Flags {
    let nan = r.is_nan();
    Flags { z: r == 0.0 || nan, s: r < 0.0 || nan, c: false, o: false }
}

/// Flags of a boolean-mask set (`ISET/FSET ... .BM .CC`): S = result,
/// Z = !result, O and C cleared (SPA opISET/opFSET).
pub fn bm_flags(result: bool) -> Flags {
    Flags { z: !result, s: result, c: false, o: false }
}
