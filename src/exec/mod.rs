//! The executor, the one way every algorithm of the four papers runs: [`Stepper`] (one step, a
//! [`Record`], only the algorithm's own stop reasons), [`Watch`] (cap, tolerance on a named
//! [`Measure`], stall, deadline), [`Run`] (the bounded [`Trace`], `run_for`, `run`), [`Task`]
//! and [`run_task_for`] (every resumable preparation, sliced), and [`Race`] (lanes of watched
//! steppers, read out as [`Standing`]s). Only this module slices time with `clock::within`
//! (`tools/check-slicing.py`).

pub mod race;
pub mod stepper;

pub use race::{Lane, Race, Standing, Target};
pub use stepper::{
    run_task_for, run_to_end, Measure, Progress, Record, Run, Stall, Stepper, Stop, Task, Tol,
    Trace, Watch, STALL_MIN_WINDOW, STALL_ULPS,
};
