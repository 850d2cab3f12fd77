//! executor-latency: the same busy-work loop as async tasks on one single-threaded executor
//! (embassy's std executor, as in the seed, or tokio's current-thread runtime with a LocalSet)
//! versus as OS threads, at growing volume.
//!
//! Two phases per (kind, volume), as in the seed:
//!   delay       units sleep (id+i mod 20 + 1) × 10 ms; reports the mean iteration delay
//!               (latency, ns) and the loop iterations per second of all units (throughput)
//!   atomic-sum  units sleep (id+i mod 20 + 1) × 1 ms and increment one shared atomic per
//!               iteration; reports increments per second (throughput)
//!
//! Output: Bencher Metric Format JSON (one benchmark per phase/kind/volume) to --out or stdout.
//! BMF holds no raw samples, so `lower_value`/`upper_value` carry the 95% confidence interval of
//! the mean delay, mean ± 1.96·s/√n over all iterations of all units (iterations of one unit are
//! not independent, so read it as a lower bound on the uncertainty).
//!
//! Usage:
//!   executor-latency [--secs S] [--volumes 10,100] [--works N] [--kinds embassy,tokio,thread] [--out FILE]
//!   executor-latency --probe embassy|tokio|thread VOLUME [--works N]   (3 iterations per unit, no sleep)

mod embassy_units;
mod units;

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use units::{Kind, Outcome, Setup};

struct Args {
    secs: f64,
    volumes: Vec<usize>,
    works: u64,
    kinds: Vec<Kind>,
    out: Option<String>,
    probe: Option<(Kind, usize)>,
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("executor-latency: {e}");
            eprintln!("usage: executor-latency [--secs S] [--volumes 10,100] [--works N] [--kinds embassy,tokio,thread] [--out FILE]");
            eprintln!("       executor-latency --probe embassy|tokio|thread VOLUME [--works N]");
            return ExitCode::from(2);
        }
    };
    if let Some((kind, volume)) = args.probe {
        let setup = Setup {
            volume,
            works: args.works,
            sleep_unit: Duration::ZERO,
            atomic: true,
            duration: Duration::ZERO,
            iterations: Some(3),
        };
        let outcome = run(kind, &setup);
        println!("{} units, {} iterations, sum {}", volume, outcome.delays_ns.len(), outcome.sum);
        return ExitCode::SUCCESS;
    }

    let mut bmf = Vec::new();
    for &volume in &args.volumes {
        for &kind in &args.kinds {
            let duration = Duration::from_secs_f64(args.secs);
            let base = Setup { volume, works: args.works, sleep_unit: Duration::ZERO, atomic: false, duration, iterations: None };
            let delay = run(kind, &Setup { sleep_unit: Duration::from_millis(10), ..base });
            bmf.push(delay_entry(kind, volume, &delay));
            let atomic = run(kind, &Setup { sleep_unit: Duration::from_millis(1), atomic: true, ..base });
            bmf.push(atomic_entry(kind, volume, &atomic));
            eprintln!(
                "{:>6} volume {volume:>4}: delay {:.0} ns over {} iterations, atomic sum {:.0}/s",
                kind.name(),
                mean(&delay.delays_ns),
                delay.delays_ns.len(),
                atomic.sum as f64 / atomic.window.as_secs_f64()
            );
        }
    }
    let json = format!("{{\n{}\n}}\n", bmf.join(",\n"));
    match &args.out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, json) {
                eprintln!("executor-latency: {path}: cannot write: {e}");
                return ExitCode::from(2);
            }
        }
        None => print!("{json}"),
    }
    ExitCode::SUCCESS
}

fn run(kind: Kind, setup: &Setup) -> Outcome {
    match kind {
        Kind::Embassy => embassy_units::run_embassy(setup),
        Kind::Tokio => units::run_tokio(setup),
        Kind::Thread => units::run_threads(setup),
    }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() { 0.0 } else { xs.iter().sum::<f64>() / xs.len() as f64 }
}

/// (mean, half-width of its 95% normal confidence interval).
fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = mean(xs);
    if xs.len() < 2 {
        return (m, 0.0);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, 1.96 * (var / n).sqrt())
}

fn delay_entry(kind: Kind, volume: usize, o: &Outcome) -> String {
    let (m, half) = mean_ci(&o.delays_ns);
    let rate = o.delays_ns.len() as f64 / o.window.as_secs_f64();
    let mut s = String::new();
    write!(
        s,
        "  \"delay/{}/volume={volume}\": {{\"latency\": {{\"value\": {m:.1}, \"lower_value\": {:.1}, \"upper_value\": {:.1}}}, \
         \"throughput\": {{\"value\": {rate:.3}}}}}",
        kind.name(),
        (m - half).max(0.0), // a delay is never negative, whatever the spread
        m + half
    )
    .unwrap();
    s
}

fn atomic_entry(kind: Kind, volume: usize, o: &Outcome) -> String {
    let rate = o.sum as f64 / o.window.as_secs_f64();
    format!("  \"atomic-sum/{}/volume={volume}\": {{\"throughput\": {{\"value\": {rate:.3}}}}}", kind.name())
}

fn parse_args(argv: Vec<String>) -> Result<Args, String> {
    let mut args = Args {
        secs: 1.0,
        volumes: vec![10, 100],
        works: 1000,
        kinds: vec![Kind::Embassy, Kind::Tokio, Kind::Thread],
        out: None,
        probe: None,
    };
    let mut it = argv.into_iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--secs" => {
                let v = value("--secs")?;
                args.secs = v.parse().ok().filter(|s: &f64| *s > 0.0 && s.is_finite()).ok_or(format!("--secs {v:?}: not a positive number"))?;
            }
            "--volumes" => {
                let v = value("--volumes")?;
                args.volumes = v.split(',').map(|p| p.trim().parse().ok().filter(|&n: &usize| n > 0)).collect::<Option<_>>()
                    .ok_or(format!("--volumes {v:?}: expected positive whole numbers separated by commas"))?;
            }
            "--works" => {
                let v = value("--works")?;
                args.works = v.parse().map_err(|_| format!("--works {v:?}: not a whole number"))?;
            }
            "--kinds" => {
                let v = value("--kinds")?;
                args.kinds = v.split(',').map(|k| parse_kind(k.trim())).collect::<Result<_, _>>()
                    .map_err(|e| format!("--kinds {v:?}: {e}"))?;
            }
            "--out" => args.out = Some(value("--out")?),
            "--probe" => {
                let kind = parse_kind(&value("--probe")?).map_err(|e| format!("--probe: {e}"))?;
                let v = value("--probe VOLUME")?;
                let volume = v.parse().ok().filter(|&n: &usize| n > 0).ok_or(format!("--probe volume {v:?}: not a positive whole number"))?;
                args.probe = Some((kind, volume));
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if let Some(&v) = args.volumes.iter().chain(args.probe.iter().map(|(_, v)| v)).find(|&&v| v > embassy_units::MAX_VOLUME) {
        return Err(format!("volume {v} above {} (embassy's static task pool)", embassy_units::MAX_VOLUME));
    }
    Ok(args)
}

fn parse_kind(name: &str) -> Result<Kind, String> {
    match name {
        "embassy" => Ok(Kind::Embassy),
        "tokio" => Ok(Kind::Tokio),
        "thread" => Ok(Kind::Thread),
        other => Err(format!("{other:?}: expected embassy, tokio or thread")),
    }
}
