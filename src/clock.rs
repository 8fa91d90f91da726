//! The time budget, defined once: the pages advance their work a few milliseconds per frame
//! (the solvers, the races, the sliced preparations), the CLI runs to the end. Every
//! "work until the budget is spent" loop of the crate is [`within`].

use std::sync::RwLock;

static DEADLINE: RwLock<Option<web_time::Instant>> = RwLock::new(None);

/// Set (or clear) the process-wide deadline: `kplay --time-limit SECONDS` sets it once at
/// start, so a run or a race that reaches it ends cleanly with the `time_limit` stop and its
/// partial result ([`crate::exec::Run::run`], [`crate::exec::Race::run`]). The page
/// sets none: it slices its work per frame and has Pause and Cancel.
pub fn set_deadline(deadline: Option<web_time::Instant>) {
    if let Ok(mut g) = DEADLINE.write() {
        *g = deadline;
    }
}

/// Whether the process-wide deadline ([`set_deadline`]) has passed.
pub fn deadline_passed() -> bool {
    match DEADLINE.read().map(|g| *g) {
        Ok(Some(d)) => web_time::Instant::now() >= d,
        _ => false,
    }
}

/// Milliseconds since `t0` (wall clock; `web_time` is `performance.now()` in the browser).
pub fn ms_since(t0: web_time::Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

/// Call `unit` until it returns `false` (nothing left to do) or `budget_ms` has elapsed; the
/// first call is always made, so a budget of 0 still advances by one unit. Returns how many
/// calls returned `true` (units of work done).
pub fn within(budget_ms: f64, mut unit: impl FnMut() -> bool) -> usize {
    let t0 = web_time::Instant::now();
    let mut done = 0;
    while unit() {
        done += 1;
        if ms_since(t0) >= budget_ms {
            break;
        }
    }
    done
}

/// [`within`] for fallible work: the first error ends the loop and is returned.
pub fn try_within<E>(
    budget_ms: f64,
    mut unit: impl FnMut() -> Result<bool, E>,
) -> Result<usize, E> {
    let mut failed = None;
    let done = within(budget_ms, || match unit() {
        Ok(more) => more,
        Err(e) => {
            failed = Some(e);
            false
        }
    });
    failed.map_or(Ok(done), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_stops_when_the_work_ends_and_always_makes_one_call() {
        let mut left = 5;
        let done = within(f64::INFINITY, || {
            if left == 0 {
                return false;
            }
            left -= 1;
            true
        });
        assert_eq!((done, left), (5, 0));
        let mut calls = 0;
        assert_eq!(
            within(0.0, || {
                calls += 1;
                true
            }),
            1
        );
        assert_eq!(calls, 1);
        assert_eq!(within(0.0, || false), 0);
        let mut n = 0;
        assert_eq!(
            try_within(f64::INFINITY, || {
                n += 1;
                if n < 3 {
                    Ok(true)
                } else {
                    Err(n)
                }
            }),
            Err(3)
        );
        assert_eq!(try_within::<()>(f64::INFINITY, || Ok(false)), Ok(0));
    }
}
