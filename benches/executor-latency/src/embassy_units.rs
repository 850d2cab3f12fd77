//! The work units as tasks on embassy's std executor (`embassy_executor::Executor`, arch-std):
//! one thread that polls its run queue and parks on a condvar when nothing is ready.  Sleeps are
//! `embassy_time::Timer`s served by embassy-time's std driver; yields are
//! `embassy_futures::yield_now`.
//!
//! `Executor::run` never returns, so each run gets its own executor on a fresh thread, which a
//! coordinator task reports back from and then leaves parked (idle, it costs no CPU).

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::hint::black_box;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::task::{Poll, Waker};
use std::time::Instant;

use embassy_executor::{Executor, Spawner};

use crate::units::{keep_going, sleep_for, Outcome, Setup};

/// Embassy allocates tasks from static pools: the most units one run may spawn.
pub const MAX_VOLUME: usize = 400;

struct Shared {
    stop: Cell<bool>,
    // One thread: a plain counter would do, but the seed's experiment is the atomic.
    counter: AtomicU64,
    running: Cell<usize>,
    delays: RefCell<Vec<f64>>,
    all_done: RefCell<Option<Waker>>,
}

async fn busy_work(works: u64) -> u64 {
    let mut total = 0u64;
    for _ in 0..works {
        total = black_box(total + 1);
        embassy_futures::yield_now().await;
    }
    black_box(total)
}

#[embassy_executor::task(pool_size = MAX_VOLUME)]
async fn unit(id: usize, setup: Setup, shared: Rc<Shared>) {
    let mut delays = Vec::new();
    let mut i = 0;
    while keep_going(&setup, shared.stop.get(), i) {
        i += 1;
        let asked = sleep_for(&setup, id, i);
        let began = Instant::now();
        busy_work(setup.works).await;
        if !asked.is_zero() {
            embassy_time::Timer::after_micros(asked.as_micros() as u64).await;
        }
        if setup.atomic {
            shared.counter.fetch_add(1, Ordering::SeqCst);
        }
        delays.push((began.elapsed().as_nanos() as f64) - asked.as_nanos() as f64);
    }
    shared.delays.borrow_mut().extend(delays);
    shared.running.set(shared.running.get() - 1);
    if shared.running.get() == 0 {
        if let Some(w) = shared.all_done.borrow_mut().take() {
            w.wake();
        }
    }
}

// A previous run's coordinator may still be finishing its last poll when the next run spawns one.
#[embassy_executor::task(pool_size = 2)]
async fn coordinator(spawner: Spawner, setup: Setup, reply: mpsc::Sender<Outcome>) {
    let shared = Rc::new(Shared {
        stop: Cell::new(false),
        counter: AtomicU64::new(0),
        running: Cell::new(setup.volume),
        delays: RefCell::new(Vec::new()),
        all_done: RefCell::new(None),
    });
    let start = Instant::now();
    for id in 1..=setup.volume {
        spawner.spawn(unit(id, setup, Rc::clone(&shared))).expect("embassy unit pool exhausted");
    }
    if setup.iterations.is_none() {
        embassy_time::Timer::after_micros(setup.duration.as_micros() as u64).await;
    }
    // The window closes here: increments after it are not counted.
    let sum = shared.counter.load(Ordering::SeqCst);
    let window = start.elapsed();
    shared.stop.set(true);
    // Woken by the last unit to finish; that unit's pool slot is free once it is polled to the
    // end, which happens before this task runs again on the same thread.
    poll_fn(|cx| {
        if shared.running.get() == 0 {
            Poll::Ready(())
        } else {
            *shared.all_done.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        }
    })
    .await;
    let sum = if setup.iterations.is_some() { shared.counter.load(Ordering::SeqCst) } else { sum };
    let delays = shared.delays.take();
    let _ = reply.send(Outcome { delays_ns: delays, sum, window });
}

pub fn run_embassy(setup: &Setup) -> Outcome {
    assert!(setup.volume <= MAX_VOLUME, "volume {} above embassy pool size {MAX_VOLUME}", setup.volume);
    let (tx, rx) = mpsc::channel();
    let setup = *setup;
    std::thread::spawn(move || {
        let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        executor.run(move |spawner| {
            spawner.spawn(coordinator(spawner, setup, tx)).expect("embassy coordinator pool exhausted");
        })
    });
    rx.recv().expect("embassy executor thread ended without a result")
}
