//! Checking a module one function body at a time.
//!
//! The module pass ([`module::pass`]) checks the header, the module-scope
//! declarations and every function's declaration in order, building the
//! module-level state ([`Globals`]) and a [`Job`] per body. Each body is then
//! checked in a context of its own that reads that state ([`check_body`]):
//! it sees the module-scope names declared before it, as in one pass. The
//! diagnostics are merged back in source order ([`Merge`]): the module
//! pass's up to a body, the body's, and so on, with the `limit` applied to
//! the merged sequence, so the result is the same whatever order the bodies
//! were checked in.
//!
//! [`check_text`] does this from the text: it parses the module's outline
//! (`parse_outline`, bodies skipped) and parses each body only when its
//! turn comes (`parse_body_at`: the header is the outline's), on `threads`
//! threads, dropping it once
//! checked, so memory holds the text, the outline and one body per thread.
//! A module with any syntax diagnostic is parsed and reported as a whole,
//! as before.

use crate::ctx::{Ctx, Globals};
use crate::module::{self, Job};
use crate::{body, Checked, Mode};
use ptxsim_syntax::ast::{Block, Item, Module, Statement};
use ptxsim_syntax::{Diagnostic, Span};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// What checking one body found: its diagnostics (at most `limit` errors
/// and `limit` warnings kept, the rest counted) and the `.extern` functions
/// it calls without a definition, in the order first called.
#[derive(Debug, Default)]
pub struct Part<'a> {
    pub diagnostics: Vec<Diagnostic>,
    pub errors_not_shown: usize,
    pub warnings_not_shown: usize,
    pub unresolved: Vec<(&'a str, Span)>,
}

/// Checks `body`, the body of `f` (the function of `job`; `f.body` may be
/// the outline's empty stand-in), against the module-level state `g`.
pub fn check_body<'a>(g: &Globals<'_, 'a>, job: &Job, f: &ptxsim_syntax::ast::Function<'a>, body: &Block<'a>, limit: usize) -> Part<'a> {
    let mut cx = Ctx::for_body(g, job.before);
    cx.limit = limit;
    body::check_function(&mut cx, f, body, job.func);
    Part { diagnostics: cx.diags, errors_not_shown: cx.errors_not_shown, warnings_not_shown: cx.warnings_not_shown, unresolved: cx.unresolved }
}

/// The diagnostics of the module pass and of the bodies, merged in source
/// order.
pub struct Merge<'a> {
    out: Vec<Diagnostic>,
    limit: usize,
    kept: (usize, usize),
    /// Found past the limit of the merged sequence.
    dropped: (usize, usize),
    /// The module pass's kept diagnostics not merged yet, and how many were merged.
    module: std::vec::IntoIter<Diagnostic>,
    merged: usize,
    /// Counted, not kept, before the merge: past the limit in any order.
    errors_not_shown: usize,
    warnings_not_shown: usize,
    unresolved: Vec<(&'a str, Span)>,
    deferred: Vec<Diagnostic>,
}

impl<'a> Merge<'a> {
    /// Starts from the module pass's context, taking its diagnostics.
    pub fn new(cx: &mut Ctx<'_, 'a>, limit: usize) -> Merge<'a> {
        Merge {
            out: Vec::new(),
            limit,
            kept: (0, 0),
            dropped: (0, 0),
            module: std::mem::take(&mut cx.diags).into_iter(),
            merged: 0,
            errors_not_shown: std::mem::take(&mut cx.errors_not_shown),
            warnings_not_shown: std::mem::take(&mut cx.warnings_not_shown),
            unresolved: std::mem::take(&mut cx.unresolved),
            deferred: std::mem::take(&mut cx.deferred),
        }
    }

    /// Keeps `d` if fewer than `limit` of its severity are kept.
    fn emit(&mut self, d: Diagnostic) {
        let (kept, dropped) = if d.is_error() { (&mut self.kept.0, &mut self.dropped.0) } else { (&mut self.kept.1, &mut self.dropped.1) };
        if *kept >= self.limit {
            *dropped += 1;
        } else {
            *kept += 1;
            self.out.push(d);
        }
    }

    fn module_upto(&mut self, n: usize) {
        while self.merged < n {
            let Some(d) = self.module.next() else { break };
            self.merged += 1;
            self.emit(d);
        }
    }

    /// The next body's findings, in the order of the jobs.
    pub fn body(&mut self, job: &Job, part: Part<'a>) {
        self.module_upto(job.diags_before);
        for d in part.diagnostics {
            self.emit(d);
        }
        self.errors_not_shown += part.errors_not_shown;
        self.warnings_not_shown += part.warnings_not_shown;
        for (n, s) in part.unresolved {
            if !self.unresolved.iter().any(|u| u.0 == n) {
                self.unresolved.push((n, s));
            }
        }
    }

    pub fn finish(mut self) -> Checked {
        self.module_upto(usize::MAX);
        for d in std::mem::take(&mut self.deferred) {
            self.emit(d);
        }
        Checked {
            diagnostics: self.out,
            errors_not_shown: self.errors_not_shown + self.dropped.0,
            warnings_not_shown: self.warnings_not_shown + self.dropped.1,
            unresolved: self.unresolved.into_iter().map(|(n, s)| (n.to_string(), s)).collect(),
        }
    }
}

/// Checks a module whose bodies are all in its syntax tree, one body after
/// the other.
pub fn check_module(m: &Module<'_>, limit: usize, mode: Mode) -> Checked {
    let mut cx = Ctx::new();
    cx.limit = limit;
    cx.gm().mode = mode;
    let jobs = module::pass(&mut cx, m);
    let mut merge = Merge::new(&mut cx, limit);
    for job in &jobs {
        if let Item::Function(f) = &m.items[job.item] {
            if let Some(b) = &f.body {
                merge.body(job, check_body(&cx, job, f, b, limit));
            }
        }
    }
    merge.finish()
}

/// What [`check_text`] found.
#[derive(Debug, Default)]
pub struct TextChecked {
    /// The parser's diagnostics (none when the module parsed cleanly), and
    /// its errors past the limit.
    pub parse_diagnostics: Vec<Diagnostic>,
    pub parse_errors_not_shown: usize,
    /// The checker's findings; `None` when the module has syntax errors.
    pub checked: Option<Checked>,
}

/// Parses and checks a module's text, keeping at most `limit` errors and
/// `limit` warnings of each stage, with bodies parsed and checked one at a
/// time on at most `threads` threads (and one per 256 KiB of text at most). The result does not depend on
/// `threads`, and equals parsing the whole module with `parse_with_limit`
/// and checking it with [`crate::check_module_mode`] when it parses
/// without errors.
pub fn check_text(text: &str, limit: usize, mode: Mode, threads: usize) -> TextChecked {
    check_text_spread(text, limit, mode, threads, MIN_BYTES_PER_THREAD)
}

/// [`check_text`] with a thread for every `bytes_per_thread` of text at
/// most (tests spread small modules over several threads with it).
pub fn check_text_spread(text: &str, limit: usize, mode: Mode, threads: usize, bytes_per_thread: usize) -> TextChecked {
    let threads = threads.min(text.len() / bytes_per_thread.max(1)).max(1);
    streamed(text, limit, mode, threads).unwrap_or_else(|| whole(text, limit, mode))
}

/// The whole module parsed, then checked if it has no syntax errors.
fn whole(text: &str, limit: usize, mode: Mode) -> TextChecked {
    let parsed = ptxsim_syntax::parse_with_limit(text, limit);
    let mut r = TextChecked { parse_errors_not_shown: parsed.errors_not_shown, ..Default::default() };
    if !parsed.has_errors() {
        r.checked = Some(check_module(&parsed.module, limit, mode));
    }
    r.parse_diagnostics = parsed.diagnostics;
    r
}

/// The module checked body by body from its outline; `None` when the
/// outline or a body has a syntax diagnostic.
fn streamed<'a>(text: &'a str, limit: usize, mode: Mode, threads: usize) -> Option<TextChecked> {
    let outline = ptxsim_syntax::parse_outline(text)?;
    let mut cx = Ctx::new();
    cx.limit = limit;
    cx.gm().mode = mode;
    let jobs = module::pass(&mut cx, &outline);
    let mut merge = Merge::new(&mut cx, limit);
    let run = |g: &Globals<'_, 'a>, job: &Job, stack: &mut Vec<Statement<'a>>| -> Option<Part<'a>> { run_job(text, &outline, g, job, stack, limit) };
    let threads = threads.min(jobs.len());
    if threads <= 1 {
        let mut stack = Vec::new();
        for job in &jobs {
            merge.body(job, run(&cx, job, &mut stack)?);
        }
    } else {
        parallel(&cx, &jobs, threads, &run, |job, part| merge.body(job, part))?;
    }
    Some(TextChecked { checked: Some(merge.finish()), ..Default::default() })
}

/// One body: parsed on `stack` (the statements of the one before,
/// emptied), its header taken from the outline (not parsed again),
/// checked, dropped; its statement vector becomes the stack.
fn run_job<'a>(text: &'a str, outline: &Module<'a>, g: &Globals<'_, 'a>, job: &Job, stack: &mut Vec<Statement<'a>>, limit: usize) -> Option<Part<'a>> {
    let Item::Function(header) = &outline.items[job.item] else { return None };
    let skipped = header.body.as_ref()?;
    let body = ptxsim_syntax::parse_body_at(text, skipped.span.start, std::mem::take(stack))?;
    // The body ends where the outline's brace matching said (so the outline
    // went on where a whole parse goes on).
    if !body.span.same_as(skipped.span) {
        return None;
    }
    let part = check_body(g, job, header, &body, limit);
    *stack = body.stmts;
    stack.clear();
    Some(part)
}

/// The least text per thread of [`check_text`]: starting a thread costs
/// more than checking a small module's bodies.
const MIN_BYTES_PER_THREAD: usize = 256 << 10;

/// How many bodies may be checked ahead of the first one not merged yet,
/// per thread: what bounds the findings waiting to be merged.
const AHEAD_PER_THREAD: usize = 16;

/// What the threads of [`parallel`] share: each job's findings until merged,
/// how many are merged, whether a body failed to parse, how many threads
/// wait for the merge to catch up, and the merge itself.
struct Board<'a, M> {
    slots: Vec<Option<Part<'a>>>,
    merged: usize,
    failed: bool,
    waiting: usize,
    merge: M,
}

fn lock<'m, T>(m: &'m Mutex<T>) -> MutexGuard<'m, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks the board failed if its thread unwinds, so that no thread waits
/// for a job that will never be done.
struct FailOnUnwind<'m, 'a, M>(&'m Mutex<Board<'a, M>>, &'m Condvar);

impl<M> Drop for FailOnUnwind<'_, '_, M> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            lock(self.0).failed = true;
            self.1.notify_all();
        }
    }
}

/// Runs `run` on every job on `threads` threads, each taking the next job
/// not taken, at most `AHEAD_PER_THREAD * threads` ahead of the first job not
/// merged. The thread that finishes the first job not merged hands it, and
/// the finished jobs after it, to `merge` in order, so no thread waits for
/// findings and few wait at all. `None` if a job returned `None`.
fn parallel<'a, F, M>(g: &Globals<'_, 'a>, jobs: &[Job], threads: usize, run: &F, merge: M) -> Option<()>
where
    F: Fn(&Globals<'_, 'a>, &Job, &mut Vec<Statement<'a>>) -> Option<Part<'a>> + Sync,
    M: FnMut(&Job, Part<'a>) + Send,
{
    let window = threads * AHEAD_PER_THREAD;
    let next = AtomicUsize::new(0);
    let board = Mutex::new(Board { slots: (0..jobs.len()).map(|_| None).collect(), merged: 0, failed: false, waiting: 0, merge });
    let cv = Condvar::new();
    std::thread::scope(|s| {
        for _ in 0..threads {
            // The main thread's stack size: the parser and the checker
            // recurse as deep as the module nests (up to `MAX_DEPTH`). A
            // thread that cannot start leaves its jobs to the others (with
            // none started, the module is checked whole).
            let _ = std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(s, || {
                let _guard = FailOnUnwind(&board, &cv);
                let mut stack = Vec::new();
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    if j >= jobs.len() {
                        break;
                    }
                    {
                        let mut b = lock(&board);
                        while j >= b.merged + window && !b.failed {
                            b.waiting += 1;
                            b = cv.wait(b).unwrap_or_else(|e| e.into_inner());
                            b.waiting -= 1;
                        }
                        if b.failed {
                            break;
                        }
                    }
                    let r = run(g, &jobs[j], &mut stack);
                    let mut guard = lock(&board);
                    let b = &mut *guard;
                    let Some(p) = r else {
                        b.failed = true;
                        cv.notify_all();
                        break;
                    };
                    b.slots[j] = Some(p);
                    if j == b.merged {
                        while let Some(p) = b.slots.get_mut(b.merged).and_then(Option::take) {
                            (b.merge)(&jobs[b.merged], p);
                            b.merged += 1;
                        }
                        if b.waiting > 0 {
                            cv.notify_all();
                        }
                    }
                }
            });
        }
    });
    let b = lock(&board);
    if b.failed || b.merged < jobs.len() {
        None
    } else {
        Some(())
    }
}
