//! `kplay`: the native command line of Kernel Playground, for every paper's spec (the JSON a
//! page keeps in its link: `{"paper": "lp" | "mrlsr" | "dinuzzo" | "perceptron", …}`; a spec
//! without `paper` is paper A's).
//!
//! ```text
//! kplay run SPEC.json            solve; print one JSON object (status, values, solution, trace)
//! kplay gen SPEC.json -o FILE    write the spec's data as CSV (stdout without -o)
//! kplay digest SPEC.json         print the data's bit digest (equal natively and in wasm)
//! kplay plot SPEC.json -o PREFIX  solve, then write PREFIX-convergence.svg (and paper A's PREFIX-spikes.svg)
//! kplay race SPEC.json           every algorithm of the paper on the same data
//! kplay spec [PAPER]             print a paper's default spec (lp, mrlsr, dinuzzo, perceptron);
//!                                paper B's with its `selection` and `equivalence` sections
//! kplay schema [PAPER]           print the fields a paper's page binds (path, type, range, step, default)
//! kplay lesson check LESSON.json  run every step of a lesson, check every claim (docs/lessons.md)
//! ```
//! Errors go to stderr with a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kernel_playground::budget::{self, Budget};
use kernel_playground::lesson;
use kernel_playground::papers::mrlsr::MrlsrSpec;
use kernel_playground::papers::{self, Paper, Spec};
use kernel_playground::KpError;

const USAGE: &str = "usage:
  kplay run SPEC.json            solve; print one JSON object (status, values, solution, trace)
  kplay gen SPEC.json [-o FILE]  write the spec's data as CSV
  kplay digest SPEC.json         print the data's bit digest
  kplay plot SPEC.json -o PREFIX  solve; write PREFIX-convergence.svg (paper A also PREFIX-spikes.svg)
  kplay race SPEC.json           run every algorithm of the spec's paper on the same data
  kplay spec [PAPER]             print the default spec of a paper: lp (default), mrlsr, dinuzzo, perceptron
                                 (mrlsr: with its optional `selection` and `equivalence` sections
                                 written out, every field; delete one to run without it)
  kplay schema [PAPER]           print the fields a paper's page binds: path, type, range, step, default, label
  kplay lesson check LESSON.json run every step of a lesson natively and check each claim
                                 (exit 1 when a claim fails; docs/lessons.md)
SPEC.json is any page's spec (\"Copy link\" / \"save spec\"): {\"paper\": \"lp\" | \"mrlsr\" | \"dinuzzo\" | \"perceptron\", ...};
a CSV `path` in it is read relative to the spec file.
options (anywhere):
  --budget-gib G                 set the memory budget to G GiB (default: 8 GiB, or less when the
                                 machine has less memory available or a lower address-space limit)
  --time-limit SECONDS           end `run` and `race` cleanly after SECONDS: status `time_limit`,
                                 with the iterate, measures and trace reached by then (a race
                                 whose reference F* is cut judges no lane); `lesson check`
                                 reports the claims it did not reach as not run, exit 1
  --threads N                    use N threads (default 1) where it pays: a race's lanes, paper
                                 B's eigendecomposition, kernel matrices, paper A's Newton
                                 Hessian and Gram tensor (the same bits for every N; paper B's
                                 eigendecomposition agrees to rounding, tests/threads.rs)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match real_main(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) if msg == CLAIMS_FAILED => ExitCode::from(1),
        Err(msg) => {
            eprintln!("kplay: {msg}");
            ExitCode::from(2)
        }
    }
}

/// The largest spec file read (a spec with inline CSV text may be as large as a CSV file).
fn spec_limit() -> u64 {
    budget::active().csv_bytes + (1 << 20)
}

/// Read a spec file (any paper) and the CSV files it names, relative to the spec's folder
/// (regular files only, each within the budget's byte limit).
fn load_spec(path: &str) -> Result<Spec, String> {
    let text = budget::read_text_file(Path::new(path), "spec", spec_limit()).map_err(err)?;
    let mut spec = Spec::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    let base = Path::new(path).parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut read = |csv: &str| -> kernel_playground::Result<String> {
        let full: PathBuf = base.join(csv);
        budget::read_text_file(&full, "CSV", budget::active().csv_bytes)
    };
    spec.resolve_csv(&mut read).map_err(|e| format!("{path}: {e}"))?;
    Ok(spec)
}

/// Write to stdout; a closed pipe (`kplay run … | head`) ends the output quietly instead of
/// panicking the way `println!` does.
fn emit(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}

fn err(e: KpError) -> String {
    e.to_string()
}

/// Take `--budget-gib G`, `--time-limit SECONDS` and `--threads N` (anywhere) out of the arguments, install
/// the CLI budget (by default [`Budget::cli_for_machine`]) and the deadline they name.
fn budget_flag(args: &[String]) -> Result<Vec<String>, String> {
    let mut rest = Vec::new();
    let mut it = args.iter();
    let mut budget = Budget::cli_for_machine();
    while let Some(a) = it.next() {
        if a == "--budget-gib" {
            let v = it.next().ok_or("--budget-gib needs a number of GiB")?;
            let gib: f64 = v.parse().map_err(|_| format!("--budget-gib: `{v}` is not a number"))?;
            budget = Budget::cli_with_gib(gib).map_err(err)?;
        } else if a == "--time-limit" {
            let v = it.next().ok_or("--time-limit needs a number of seconds")?;
            let secs: f64 =
                v.parse().map_err(|_| format!("--time-limit: `{v}` is not a number"))?;
            if !(secs.is_finite() && secs > 0.0 && secs <= 1e9) {
                return Err(format!(
                    "--time-limit: a number of seconds between 0 and 10⁹ (got {v})"
                ));
            }
            let deadline = web_time::Instant::now() + std::time::Duration::from_secs_f64(secs);
            kernel_playground::clock::set_deadline(Some(deadline));
        } else if a == "--threads" {
            let v = it.next().ok_or("--threads needs a number of threads")?;
            let n: usize = v
                .parse()
                .map_err(|_| format!("--threads: `{v}` is not a whole number of threads"))?;
            kernel_playground::par::set_threads(n).map_err(err)?;
        } else {
            rest.push(a.clone());
        }
    }
    budget::set_active(budget);
    Ok(rest)
}

/// The error `lesson check` returns when it ran and a claim failed (exit 1, not 2).
const CLAIMS_FAILED: &str = "\u{0}claims failed";

/// `kplay lesson check FILE`: parse strictly, run every step, print each claim's outcome.
fn lesson_check(args: &[String]) -> Result<(), String> {
    let (Some("check"), Some(path), None) =
        (args.get(1).map(String::as_str), args.get(2), args.get(3))
    else {
        return Err(format!("lesson needs `check LESSON.json`\n{USAGE}"));
    };
    let limit = kernel_playground::lesson::MAX_BYTES as u64;
    let rule = format!(
        "a lesson file is at most {} (a fixed limit of the lesson format, the same in the page; --budget-gib does not change it)",
        budget::bytes_text(limit as f64)
    );
    let text =
        budget::read_text_file_fixed(Path::new(path), "lesson", limit, &rule).map_err(err)?;
    let parsed = lesson::Lesson::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let results = lesson::check::check(&parsed);
    emit(&lesson::check::render(&parsed, &results))?;
    let not_run = results.iter().filter(|r| r.not_run).count();
    if not_run > 0 {
        eprintln!(
            "kplay: {path}: the time limit came first: {not_run} of {} claim(s) not run",
            results.len()
        );
        return Err(CLAIMS_FAILED.into());
    }
    let failed: Vec<String> = results
        .iter()
        .filter(|r| !r.pass)
        .map(|r| format!("step {} claim {}", r.step, r.id))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        eprintln!("kplay: {path}: {} claim(s) failed: {}", failed.len(), failed.join(", "));
        Err(CLAIMS_FAILED.into())
    }
}

fn real_main(args: &[String]) -> Result<(), String> {
    let args = &budget_flag(args)?[..];
    let cmd = args.first().map(String::as_str).ok_or_else(|| USAGE.to_string())?;
    // The spec file every command but `spec` takes as its first argument.
    let spec = || load_spec(args.get(1).ok_or_else(|| USAGE.to_string())?);
    match cmd {
        "run" => {
            let report = papers::run(&spec()?).map_err(err)?;
            emit(&format!("{}\n", report.to_json()))
        }
        "gen" => {
            let out = match args.get(2).map(String::as_str) {
                Some("-o") => Some(args.get(3).ok_or("-o needs a file name")?.clone()),
                Some(other) => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
                None => None,
            };
            let csv = papers::data(&spec()?).map_err(err)?.to_csv();
            match out {
                Some(f) => std::fs::write(&f, csv).map_err(|e| format!("cannot write `{f}`: {e}")),
                None => emit(&csv),
            }
        }
        "digest" => {
            let data = papers::data(&spec()?).map_err(err)?;
            emit(&format!("{}\n", data.digest()))
        }
        "plot" => {
            let prefix = match (args.get(2).map(String::as_str), args.get(3)) {
                (Some("-o"), Some(p)) => p.clone(),
                _ => return Err(format!("plot needs -o PREFIX\n{USAGE}")),
            };
            for (suffix, body) in papers::svg_plots(&spec()?).map_err(err)? {
                let f = format!("{prefix}-{suffix}.svg");
                std::fs::write(&f, body).map_err(|e| format!("cannot write `{f}`: {e}"))?;
                eprintln!("wrote {f}");
            }
            Ok(())
        }
        "race" => {
            let out = papers::race(&spec()?).map_err(err)?;
            emit(&format!("{out}\n"))
        }
        "spec" => {
            let paper = match args.get(1).map(String::as_str) {
                None | Some("lp") => Paper::Lp,
                Some("mrlsr") => Paper::Mrlsr,
                Some("dinuzzo") => Paper::Dinuzzo,
                Some("perceptron") => Paper::Perceptron,
                Some(other) => {
                    return Err(format!(
                        "unknown paper `{other}`: lp, mrlsr, dinuzzo or perceptron"
                    ))
                }
            };
            // Paper B's optional sections are shown, every field written out, as the other
            // papers show every field of theirs (a spec without them runs the fit only).
            let default = match paper {
                Paper::Mrlsr => Spec::Mrlsr(MrlsrSpec::default_with_sections()),
                other => Spec::default_for(other),
            };
            // Paper A's default stays untagged (the original format); the others carry `paper`.
            let value = match &default {
                Spec::Lp(e) => serde_json::to_value(e).map_err(|e| e.to_string())?,
                other => other.to_value(),
            };
            emit(&format!("{}\n", serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?))
        }
        "schema" => {
            let paper = args.get(1).map(String::as_str).unwrap_or("lp");
            let schema = kernel_playground::papers::spec_schema(paper).map_err(err)?;
            let value = serde_json::to_value(&schema).map_err(|e| e.to_string())?;
            emit(&format!("{}\n", serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?))
        }
        "lesson" => lesson_check(args),
        "-h" | "--help" | "help" => emit(&format!("{USAGE}\n")),
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}
