//! `ptxsim sass`: print the sm_50 machine form of a PTX module (or read back
//! and reprint a `.sass` file), and the machine-form half of `ptxsim run
//! --engine sass`: loading a PTX or `.sass` file as a machine program and
//! launching it on the CRS-stack executor, with errors in the run command's
//! `RunError` form.

use crate::common::{cut, escape_controls, read_text, EXIT_INPUT};
use ptxsim_exec::{Device, KernelArg, LaunchConfig, LaunchStats, Module, RunError, TrapKind};
use ptxsim_sass::engine::{MachineConfig, SassError};
use ptxsim_sass::isa::MProgram;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Which executor `ptxsim run` uses.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq, Default)]
pub enum EngineArg {
    /// The PTX engine.
    #[default]
    Ptx,
    /// The sm_50 machine form on the CRS token stack.
    Sass,
}

#[derive(clap::Args)]
pub struct Args {
    /// The PTX file (or a `.sass` file, read back and printed again).
    file: PathBuf,
    /// Print only this function.
    #[arg(long, alias = "function")]
    kernel: Option<String>,
}

fn is_sass(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "sass")
}

/// Loads `src` into `dev` as a machine program: lowered from PTX, or parsed
/// from `.sass` text.
pub fn load_machine(dev: &mut Device, file: &str, src: &str) -> Result<(Module, MProgram), RunError> {
    if is_sass(Path::new(file)) {
        ptxsim_sass::parse::parse(dev, file, src).map_err(|m| RunError::new(TrapKind::LoadError, m))
    } else {
        ptxsim_sass::load_and_lower(dev, file, src).map(|(m, l)| (m, l.prog)).map_err(|e| RunError::new(TrapKind::LoadError, e.to_string()))
    }
}

/// Runs a kernel of a machine program; a hardware error becomes a `trap`
/// error whose message starts with its name (`STACK_ERROR: ...`).
pub fn launch(dev: &Device, module: &Module, mp: &MProgram, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
    match ptxsim_sass::engine::launch(dev, module, mp, kernel, cfg, args, &MachineConfig::default()) {
        Ok((s, _)) => Ok(LaunchStats {
            warp_instructions: s.warp_instructions,
            thread_instructions: s.thread_instructions,
            divergent_branches: s.divergent_branches,
            ..LaunchStats::default()
        }),
        Err(SassError::Run(e)) => Err(e),
        Err(SassError::Hardware { error, reason, cta, warp, pc, function, line }) => {
            let mut e = RunError::new(TrapKind::Trap, format!("{error}: {reason} (pc {pc:#06x})"));
            e.cta = Some(cta);
            e.warp = Some(warp);
            e.function = Some(function);
            e.line = (line != 0).then_some(line);
            Err(e)
        }
    }
}

pub fn run(a: Args) -> ExitCode {
    let src = match read_text(&a.file) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let file = a.file.display().to_string();
    let mut dev = Device::new();
    let (mp, note) = if is_sass(&a.file) {
        match ptxsim_sass::parse::parse(&mut dev, &file, &src) {
            Ok((_, p)) => (p, String::new()),
            Err(m) => {
                eprintln!("error: {}", escape_controls(&m));
                return ExitCode::from(EXIT_INPUT);
            }
        }
    } else {
        match ptxsim_sass::load_and_lower(&mut dev, &file, &src) {
            Ok((_, l)) => {
                let ssy = l.sites.iter().filter(|s| s.kind == ptxsim_sass::lower::SiteKind::Ssy).count();
                let mut note = format!("// {} SSY, {} PBK; {} divergent branches without an SSY of their own\n", ssy, l.sites.len() - ssy, l.fallbacks.len());
                for f in &l.fallbacks {
                    note.push_str(&format!("//   {}: line {}: {}\n", f.function, f.line, f.reason));
                }
                (l.prog, note)
            }
            Err(m) => {
                eprintln!("error: {}", escape_controls(&format!("{} does not lower: {m}", cut(&file))));
                return ExitCode::from(EXIT_INPUT);
            }
        }
    };
    if let Some(k) = &a.kernel {
        if !mp.functions.iter().any(|f| &f.name == k) {
            eprintln!("error: {}", escape_controls(&format!("{} has no function `{}`", cut(&file), cut(k))));
            return ExitCode::from(EXIT_INPUT);
        }
    }
    print!("{}", ptxsim_sass::text::print_only(&mp, a.kernel.as_deref()));
    print!("{note}");
    ExitCode::SUCCESS
}
