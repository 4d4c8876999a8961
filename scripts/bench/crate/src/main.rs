// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// guac-crate-bench: the published `guacamole` crate, measured the way
// scripts/bench/crate.sh needs it.
//
//   guac-crate-bench gen BYTES
//       Guacamole::new(0), BYTES bytes to standard output in 1 MiB writes:
//       the loop of the crate's own binary (src/bin/guacamole.rs in 0.17.0,
//       `guacamole --bytes N`), so the same stream and the same writes.
//   guac-crate-bench api SIZE SECONDS TRIALS
//       Guacamole::generate into one reused buffer of SIZE bytes until the
//       thread has used SECONDS of CPU time, TRIALS times; prints the median,
//       min and max in MB (10^6 bytes) per CPU-second.
//   guac-crate-bench clock
//       The core clock in MHz: a chain of 20 million dependent imul
//       (3 cycles each) timed on CLOCK_THREAD_CPUTIME_ID.

use std::hint::black_box;
use std::io::Write;
use std::process::exit;

use guacamole::Guacamole;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

fn thread_cpu_ns() -> u64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec for the duration of the call.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        eprintln!("guac-crate-bench: clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        exit(1);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(target_arch = "x86_64")]
fn clock_mhz() -> f64 {
    // 200000 iterations of 100 dependent imul: 2e7 imul, 6e7 cycles.
    let iters: u64 = 200_000;
    let mut x: u64 = 3;
    let mut n = iters;
    let t0 = thread_cpu_ns();
    // SAFETY: register-only arithmetic.
    unsafe {
        std::arch::asm!(
            "2:",
            ".rept 100",
            "imul {x}, {x}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    let t1 = thread_cpu_ns();
    black_box((x, n));
    (iters * 100 * 3) as f64 / ((t1 - t0) as f64 / 1e9) / 1e6
}

#[cfg(not(target_arch = "x86_64"))]
fn clock_mhz() -> f64 {
    eprintln!("guac-crate-bench: the imul clock is x86-64 only");
    exit(1);
}

fn parse_u64(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| {
        eprintln!("guac-crate-bench: not a number: {s}");
        exit(2);
    })
}

fn cmd_gen(bytes: u64) {
    // As in guacamole 0.17.0 src/bin/guacamole.rs, with the seed at 0.
    let mut guac = Guacamole::new(0);
    let mut remain = bytes as usize;
    let mut buf = vec![0u8; 1 << 20];
    let buf: &mut [u8] = &mut buf;
    while remain > 0 {
        let amt = if remain > buf.len() { buf.len() } else { remain };
        guac.generate(&mut buf[..amt]);
        std::io::stdout()
            .write_all(&buf[..amt])
            .expect("failed to write");
        remain -= amt;
    }
}

fn cmd_api(size: usize, seconds: f64, trials: usize) {
    let mut guac = Guacamole::new(0);
    let mut buf = vec![0u8; size];
    // Warm up: fault the buffer in and reach a steady state.
    guac.generate(&mut buf);
    let limit_ns = (seconds * 1e9) as u64;
    let mut rates = Vec::with_capacity(trials);
    for _ in 0..trials {
        let t0 = thread_cpu_ns();
        let mut t1;
        let mut done: u64 = 0;
        loop {
            guac.generate(black_box(&mut buf[..]));
            black_box(&buf);
            done += size as u64;
            t1 = thread_cpu_ns();
            if t1 - t0 >= limit_ns {
                break;
            }
        }
        rates.push(done as f64 / ((t1 - t0) as f64 / 1e9) / 1e6);
    }
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "crate-api size={} median {:.0} min {:.0} max {:.0} MB/CPU-s trials {}",
        size,
        rates[rates.len() / 2],
        rates[0],
        rates[rates.len() - 1],
        trials
    );
}

fn usage() -> ! {
    eprintln!("usage: guac-crate-bench gen BYTES | api SIZE SECONDS TRIALS | clock");
    exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("gen") if args.len() == 3 => cmd_gen(parse_u64(&args[2])),
        Some("api") if args.len() == 5 => {
            let size = parse_u64(&args[2]) as usize;
            let seconds: f64 = args[3].parse().unwrap_or_else(|_| usage());
            let trials = parse_u64(&args[4]) as usize;
            if size == 0 || trials == 0 || !(seconds > 0.0) {
                usage();
            }
            cmd_api(size, seconds, trials)
        }
        Some("clock") if args.len() == 2 => println!("clock {:.0} MHz", clock_mhz()),
        _ => usage(),
    }
}
