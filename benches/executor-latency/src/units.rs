//! Work units: the same loop run as OS threads, or as async tasks on tokio's single-threaded
//! executor (embassy's is in `embassy_units.rs`).
//!
//! Each unit `id` (1..=volume) repeats, until told to stop:
//!     busy_work(works)   -- `works` increments, yielding to the scheduler after each one
//!     sleep(s_i)         -- s_i = unit · ((id + i) mod 20 + 1), i the iteration number
//!     [counter += 1]     -- the atomic-sum phase only (SeqCst fetch_add on one shared counter)
//! and records its iteration delay  d_i = (wall time of iteration i) − s_i,  the time the unit
//! lost to the busy work and to waiting for the scheduler, beyond the sleep it asked for.

use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Embassy,
    Tokio,
    Thread,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Embassy => "embassy",
            Kind::Tokio => "tokio",
            Kind::Thread => "thread",
        }
    }
}

#[derive(Clone, Copy)]
pub struct Setup {
    pub volume: usize,
    pub works: u64,
    /// The sleep unit; zero for a probe (no sleeping, no timer).
    pub sleep_unit: Duration,
    pub atomic: bool,
    /// Run for this long, or (probe) this many iterations per unit when `Some`.
    pub duration: Duration,
    pub iterations: Option<u64>,
}

pub struct Outcome {
    /// Iteration delays of every unit, in nanoseconds.
    pub delays_ns: Vec<f64>,
    /// Atomic increments counted while the run was open, and that window.
    pub sum: u64,
    pub window: Duration,
}

pub fn sleep_for(setup: &Setup, id: usize, i: u64) -> Duration {
    setup.sleep_unit * (((id as u64 + i) % 20) as u32 + 1)
}

pub fn keep_going(setup: &Setup, stop: bool, i: u64) -> bool {
    match setup.iterations {
        Some(n) => i < n,
        None => !stop,
    }
}

// --- OS threads ------------------------------------------------------------------------------

fn busy_work_thread(works: u64) -> u64 {
    let mut total = 0u64;
    for _ in 0..works {
        total = black_box(total + 1);
        std::thread::yield_now();
    }
    black_box(total)
}

pub fn run_threads(setup: &Setup) -> Outcome {
    let stop = AtomicBool::new(false);
    let counter = AtomicU64::new(0);
    let start = Instant::now();
    let (delays, window, sum) = std::thread::scope(|s| {
        let handles: Vec<_> = (1..=setup.volume)
            .map(|id| {
                let (stop, counter) = (&stop, &counter);
                s.spawn(move || {
                    let mut delays = Vec::new();
                    let mut i = 0;
                    while keep_going(setup, stop.load(Ordering::Relaxed), i) {
                        i += 1;
                        let asked = sleep_for(setup, id, i);
                        let began = Instant::now();
                        busy_work_thread(setup.works);
                        if !asked.is_zero() {
                            std::thread::sleep(asked);
                        }
                        if setup.atomic {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                        delays.push((began.elapsed().as_nanos() as f64) - asked.as_nanos() as f64);
                    }
                    delays
                })
            })
            .collect();
        if setup.iterations.is_none() {
            std::thread::sleep(setup.duration);
        }
        // The window closes here: increments after it are not counted.
        let sum = counter.load(Ordering::SeqCst);
        let window = start.elapsed();
        stop.store(true, Ordering::Relaxed);
        let delays: Vec<f64> = handles.into_iter().flat_map(|h| h.join().expect("unit thread")).collect();
        (delays, window, sum)
    });
    let sum = if setup.iterations.is_some() { counter.load(Ordering::SeqCst) } else { sum };
    Outcome { delays_ns: delays, sum, window }
}

// --- async tasks on tokio's single-threaded executor ----------------------------------------------

async fn busy_work_async(works: u64) -> u64 {
    let mut total = 0u64;
    for _ in 0..works {
        total = black_box(total + 1);
        tokio::task::yield_now().await;
    }
    black_box(total)
}

pub fn run_tokio(setup: &Setup) -> Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let stop = Rc::new(Cell::new(false));
        // One thread: a plain counter would do, but the seed's experiment is the atomic.
        let counter = Rc::new(AtomicU64::new(0));
        let start = Instant::now();
        let handles: Vec<_> = (1..=setup.volume)
            .map(|id| {
                let (stop, counter) = (Rc::clone(&stop), Rc::clone(&counter));
                let setup = *setup;
                tokio::task::spawn_local(async move {
                    let mut delays = Vec::new();
                    let mut i = 0;
                    while keep_going(&setup, stop.get(), i) {
                        i += 1;
                        let asked = sleep_for(&setup, id, i);
                        let began = Instant::now();
                        busy_work_async(setup.works).await;
                        if !asked.is_zero() {
                            tokio::time::sleep(asked).await;
                        }
                        if setup.atomic {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                        delays.push((began.elapsed().as_nanos() as f64) - asked.as_nanos() as f64);
                    }
                    delays
                })
            })
            .collect();
        if setup.iterations.is_none() {
            tokio::time::sleep(setup.duration).await;
        }
        let sum = counter.load(Ordering::SeqCst);
        let window = start.elapsed();
        stop.set(true);
        let mut delays = Vec::new();
        for h in handles {
            delays.extend(h.await.expect("unit task"));
        }
        let sum = if setup.iterations.is_some() { counter.load(Ordering::SeqCst) } else { sum };
        Outcome { delays_ns: delays, sum, window }
    })
}
