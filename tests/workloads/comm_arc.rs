// SPDX-License-Identifier: GPL-2.0-only
//
// comm_arc: Rust threads that each count into their own element of an
// Arc<Vec<AtomicU64>>, all on one line (false sharing).
//
// main makes the counters with Arc::new at ARC_LINE; each thread adds to
// its own with a relaxed load and store (core's atomics, inlined into its
// closure at ADD_LINE).  A profile names the block
// heap@comm_arc.rs:ARC_LINE (comm_arc::main), not a line of Rust's
// alloc, and the code comm_arc.rs:ADD_LINE in comm_arc::main::{{closure}},
// without the symbol's hash.
//
// Usage: comm_arc [SECONDS]   (0.01..60, default 1); 4 threads.
// Prints "comm_arc: ..."; exit 0, 2 on bad usage.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

fn main() {
    let secs: f64 = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 1.0,
        Some(Ok(v)) if (0.01..=60.0).contains(&v) => v,
        _ => {
            eprintln!("usage: comm_arc [SECONDS]");
            std::process::exit(2);
        }
    };
    let counters: Arc<Vec<AtomicU64>> = Arc::new((0..4).map(|_| AtomicU64::new(0)).collect()); // ARC_LINE
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for k in 0..4 {
        let (c, s) = (Arc::clone(&counters), Arc::clone(&stop));
        handles.push(thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                for _ in 0..1024 {
                    c[k].store(c[k].load(Ordering::Relaxed) + 1, Ordering::Relaxed); // ADD_LINE
                }
            }
        }));
    }
    thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().unwrap();
    }
    let sum: u64 = counters.iter().map(|x| x.load(Ordering::Relaxed)).sum();
    println!("comm_arc: threads=4 seconds={:.3} adds={} line={:p}", secs, sum, counters.as_ptr());
}
