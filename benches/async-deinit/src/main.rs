//! async-deinit: the cost of destroying objects through jobs on an actor's queue, as a function
//! of the number of task-local values (v) and of objects (o).
//!
//! Usage:
//!   async-deinit BENCH INPUTS        one row per (values, objects) line of INPUTS
//!   async-deinit BENCH --point V:O   one row for one point (the deterministic probe)
//! Environment: QUEUE=linear|quadratic (default linear), SET=hash|btree (default hash).
//!
//! Every benchmark is a difference, test case minus baseline case on the same point, as in the
//! seeds:
//!   async_array, async_tree   async deinit with reset task-locals  minus  regular (sync) deinit
//!   copy_array, copy_tree     async deinit copying task-locals     minus  async deinit resetting them
//! Output is the seeds' TSV: `# name args`, `#`, `# values objects Δschedule(ns) Δtotal(ns)`,
//! then one tab-separated row per point.

mod actor;
mod locals;
mod queue;

use std::process::ExitCode;
use std::rc::Rc;

use actor::{Actor, Deinit, LOCALS};
use locals::{SetKind, TaskLocals};
use queue::QueueKind;

#[derive(Clone, Copy)]
enum Shape {
    Array,
    Tree,
}

struct Bench {
    name: &'static str,
    shape: Shape,
    test: Deinit,
    baseline: Deinit,
}

const BENCHES: [Bench; 4] = [
    Bench { name: "async_array", shape: Shape::Array, test: Deinit::AsyncReset, baseline: Deinit::Sync },
    Bench { name: "async_tree", shape: Shape::Tree, test: Deinit::AsyncReset, baseline: Deinit::Sync },
    Bench { name: "copy_array", shape: Shape::Array, test: Deinit::AsyncCopy, baseline: Deinit::AsyncReset },
    Bench { name: "copy_tree", shape: Shape::Tree, test: Deinit::AsyncCopy, baseline: Deinit::AsyncReset },
];

struct Config {
    bench: &'static Bench,
    source: String,
    points: Vec<(usize, usize)>,
    queue: QueueKind,
    set: SetKind,
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1).collect()) {
        Ok(config) => {
            run(&config);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("async-deinit: {message}");
            eprintln!("usage: async-deinit BENCH (INPUTS | --point VALUES:OBJECTS)");
            eprintln!("       BENCH is one of: {}", BENCHES.map(|b| b.name).join(", "));
            ExitCode::from(2)
        }
    }
}

fn parse_args(args: Vec<String>) -> Result<Config, String> {
    let (name, source) = match args.as_slice() {
        [name, flag, point] if flag == "--point" => (name, point.clone()),
        [name, inputs] => (name, inputs.clone()),
        _ => return Err("expected two arguments".into()),
    };
    let bench = BENCHES.iter().find(|b| b.name == name).ok_or_else(|| format!("unknown benchmark {name:?}"))?;
    let points = if args.len() == 3 {
        vec![parse_point(&source).map_err(|e| format!("--point {source:?}: {e}"))?]
    } else {
        read_inputs(&source)?
    };
    let queue = env_choice("QUEUE", "linear", QueueKind::parse)?;
    let set = env_choice("SET", "hash", SetKind::parse)?;
    Ok(Config { bench, source, points, queue, set })
}

fn env_choice<T>(var: &str, default: &str, parse: fn(&str) -> Option<T>) -> Result<T, String> {
    let value = std::env::var(var).unwrap_or_else(|_| default.to_string());
    parse(&value).ok_or_else(|| format!("{var}={value:?} is not a known choice"))
}

fn parse_point(text: &str) -> Result<(usize, usize), String> {
    let fields: Vec<&str> = text.split(|c: char| c == ':' || c.is_whitespace()).filter(|f| !f.is_empty()).collect();
    match fields.as_slice() {
        [v, o] => {
            let v = v.parse().map_err(|_| format!("values {v:?} is not a whole number"))?;
            let o = o.parse().map_err(|_| format!("objects {o:?} is not a whole number"))?;
            Ok((v, o))
        }
        _ => Err("expected two whole numbers: values and objects".into()),
    }
}

/// An inputs file (see gen_points.py): `#` comments, then one `values objects` pair per line.
fn read_inputs(path: &str) -> Result<Vec<(usize, usize)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    let mut points = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        points.push(parse_point(line).map_err(|e| format!("{path}: line {}: {e}", i + 1))?);
    }
    if points.is_empty() {
        return Err(format!("{path}: no points"));
    }
    Ok(points)
}

fn run(config: &Config) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("tokio runtime");
    let tasks = tokio::task::LocalSet::new();
    let checksum = tasks.block_on(&runtime, measure_all(config));
    // Printed to stderr so the optimiser must keep every deinit body; stdout stays pure TSV.
    eprintln!("async-deinit: {} points, checksum {checksum:x}", config.points.len());
}

async fn measure_all(config: &Config) -> u64 {
    let actor = Actor::install(config.queue, config.set);
    let drain = tokio::task::spawn_local(Rc::clone(&actor).run());
    let bench = config.bench;

    // Warm the allocator, the queue's buffers and the code paths; not reported.  A single
    // --point is a probe: it counts instructions of exactly one point, so it skips this.
    if config.points.len() > 1 {
        measure_point(&actor, bench, 64, 4096).await;
    }

    println!("# {} {} --queue={} --set={}", bench.name, config.source, config.queue.name(), config.set.name());
    println!("#");
    println!("# values objects Δschedule(ns) Δtotal(ns)");
    for &(values, objects) in &config.points {
        let (schedule, total) = measure_point(&actor, bench, values, objects).await;
        println!("{values}\t{objects}\t{schedule}\t{total}");
    }
    actor.stop();
    drain.await.expect("actor task");
    actor.checksum()
}

/// (Δschedule, Δtotal) of one point: test case minus baseline case.
async fn measure_point(actor: &Actor, bench: &Bench, values: usize, objects: usize) -> (i64, i64) {
    LOCALS
        .scope(TaskLocals::with_values(values), async {
            let (base_s, base_t) = release(actor, bench.shape, bench.baseline, objects).await;
            let (test_s, test_t) = release(actor, bench.shape, bench.test, objects).await;
            (test_s as i64 - base_s as i64, test_t as i64 - base_t as i64)
        })
        .await
}

async fn release(actor: &Actor, shape: Shape, mode: Deinit, objects: usize) -> (u64, u64) {
    match shape {
        Shape::Array => actor.release_all(mode, actor::array(objects), objects).await,
        Shape::Tree => actor.release_all(mode, actor::tree(objects), objects).await,
    }
}
