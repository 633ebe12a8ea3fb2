//! The fuzz targets' allocation bound (`icbench_fuzzing::alloc::Bounded`),
//! as this test binary's global allocator: an allocation past it ends the
//! process with SIGABRT and its size on stderr, as libFuzzer needs to keep
//! the input; allocations up to it are the system allocator's.

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use icbench_fuzzing::alloc::Bounded;

const LIMIT: usize = 64 << 20;

#[global_allocator]
static ALLOC: Bounded = Bounded::new(LIMIT);

/// In the child: which allocation to make past the bound.
const CHILD: &str = "ICB_BOUNDED_ALLOC_CHILD";

/// Runs this test binary's `test` alone in a child with `CHILD=how`.
fn child(test: &str, how: &str) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, how)
        .output()
        .unwrap()
}

#[test]
fn one_allocation_past_the_bound_aborts_and_says_its_size() {
    match std::env::var(CHILD).as_deref() {
        Ok("alloc") => {
            let v: Vec<u8> = Vec::with_capacity(LIMIT + 1);
            std::hint::black_box(&v);
        }
        Ok("zeroed") => {
            let v = vec![0u64; LIMIT / 8 + 1];
            std::hint::black_box(&v);
        }
        Ok("realloc") => {
            let mut v: Vec<u8> = Vec::with_capacity(LIMIT / 2);
            v.resize(LIMIT / 2, 1);
            v.reserve_exact(LIMIT / 2 + 1);
            std::hint::black_box(&v);
        }
        Ok(other) => panic!("unknown {CHILD}={other}"),
        Err(_) => {
            let name = "one_allocation_past_the_bound_aborts_and_says_its_size";
            for (how, size) in [("alloc", LIMIT + 1), ("zeroed", LIMIT + 8), ("realloc", LIMIT + 1)]
            {
                let out = child(name, how);
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.signal(), Some(6), "{how}: SIGABRT expected; {err}");
                assert!(
                    err.contains(&format!(
                        "one allocation of {size} bytes, past the bound of {LIMIT}"
                    )),
                    "{how}: {err}"
                );
            }
        }
    }
}

#[test]
fn allocations_up_to_the_bound_are_made() {
    let mut v: Vec<u8> = Vec::with_capacity(LIMIT / 2);
    v.resize(LIMIT / 2, 7);
    v.reserve_exact(LIMIT / 2);
    assert_eq!(v.capacity(), LIMIT);
    v.resize(LIMIT, 9);
    assert_eq!((v[0], v[LIMIT - 1]), (7, 9));
    let z = vec![0u8; LIMIT];
    assert!(z.iter().all(|&b| b == 0));
}

/// The bound the fuzz targets use leaves room for the largest plan the
/// `plan` target expands (10⁶ cells, `icbench_plan`'s cap) in one vector.
#[test]
fn the_fuzz_bound_holds_the_largest_plan() {
    let cells = icbench_plan::expand::MAX_CELLS.next_power_of_two(); // a growing vector's capacity
    let bytes = cells * std::mem::size_of::<icbench_plan::PlanCell>();
    eprintln!("10^6 plan cells: {bytes} bytes in one vector");
    assert!(bytes < (1 << 30) / 2, "{bytes}");
}
