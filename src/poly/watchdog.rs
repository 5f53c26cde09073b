//! A bound on an isl computation's processor time. isl's own bound counts operations
//! (allocations and pivots), whose cost grows with the problem: its scheduler spent 30 s
//! in one million of them on a fuzzed nest of three statements, and an operation budget
//! small enough to stop that stops ordinary work too. isl checks its budget at every
//! operation, though, so a watchdog thread that lowers the budget to nothing once the
//! computing thread has spent its time stops the computation there, with isl's own error.
//! (`isl_ctx_abort` would too, but its error has no message, and isl-rs 0.3.1 reads the
//! message of every error: a null pointer.)
//!
//! The time is the computing thread's processor time, not the clock on the wall, so that
//! a machine busy with other work makes the same choices as an idle one.

use super::isl::{Ctx, IslResult};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

extern "C" {
    fn isl_ctx_set_max_operations(ctx: usize, max_operations: std::os::raw::c_ulong);
}

/// How often the watchdog reads the computing thread's clock.
const POLL: Duration = Duration::from_millis(5);

/// `f`, a computation in `ctx`, stopped once this thread has spent `cpu` of processor time
/// in it: `None` where it was (isl's error state cleared and its operation budget, the
/// `--limit isl-operations`, restored and started again, for the caller to fall back).
/// Where the thread's clock cannot be read or no thread can be started, `f` runs unbounded.
pub fn within_cpu_time<T>(
    ctx: &Ctx,
    cpu: Duration,
    f: impl FnOnce() -> IslResult<T>,
) -> IslResult<Option<T>> {
    let Some(clock) = this_thread_clock() else {
        return f().map(Some);
    };
    let Some(start) = spent(clock) else {
        return f().map(Some);
    };
    let raw = ctx.raw().ptr;
    let (done, ended) = channel::<()>();
    // The clock is this thread's: it stays valid until the join below, which this thread
    // makes.
    let watchdog = std::thread::Builder::new()
        .name("isl-watchdog".into())
        .spawn(move || loop {
            if ended.recv_timeout(POLL) != Err(RecvTimeoutError::Timeout) {
                return false;
            }
            if spent(clock).is_some_and(|now| now.saturating_sub(start) >= cpu) {
                // One operation: isl is past it at its next one.
                unsafe { isl_ctx_set_max_operations(raw, 1) };
                return true;
            }
        });
    // A machine out of threads runs `f` unbounded, as where the clock cannot be read.
    let Ok(watchdog) = watchdog else {
        return f().map(Some);
    };
    let result = f();
    drop(done);
    let aborted = watchdog.join().unwrap_or(false);
    if !aborted {
        return result.map(Some);
    }
    ctx.restart_operations();
    ctx.raw().reset_error();
    // An abort that came as `f` ended leaves its value good.
    Ok(result.ok())
}

/// The processor-time clock of the calling thread.
fn this_thread_clock() -> Option<libc::clockid_t> {
    let mut clock: libc::clockid_t = 0;
    let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) } == 0;
    ok.then_some(clock)
}

/// The processor time a thread's `clock` reads.
fn spent(clock: libc::clockid_t) -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    if unsafe { libc::clock_gettime(clock, &mut t) } != 0 {
        return None;
    }
    Some(Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::isl::Set;

    #[test]
    fn a_computation_within_its_time_keeps_its_value() {
        let ctx = Ctx::new();
        let got = within_cpu_time(&ctx, Duration::from_secs(60), || {
            Set::parse(&ctx, "[N] -> { S[i] : 0 <= i < N }")
        })
        .unwrap();
        assert!(got.is_some());
    }

    #[test]
    fn a_computation_past_its_time_is_stopped_and_the_context_works_again() {
        let ctx = Ctx::new();
        // Parses until isl refuses (the watchdog), or for ten seconds of processor time.
        let got = within_cpu_time::<()>(&ctx, Duration::from_millis(20), || {
            let clock = this_thread_clock().unwrap();
            let start = spent(clock).unwrap();
            let mut n = 0u64;
            loop {
                n += 1;
                Set::parse(&ctx, &format!("{{ S[i] : 0 <= i < {n} }}"))?;
                assert!(spent(clock).unwrap() - start < Duration::from_secs(10));
            }
        })
        .unwrap();
        assert!(got.is_none());
        let again = Set::parse(&ctx, "{ S[i] : 0 <= i < 3 }").unwrap();
        assert!(!again.is_empty().unwrap());
    }
}
