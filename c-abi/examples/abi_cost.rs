//! What the C ABI costs a host, for `cargo xtask bench platforms`: the
//! same work done through Rust's API and through the exported C functions,
//! in one run, as ratios. Portable (std's clock only), so the same program
//! built for `x86_64-pc-windows-gnu` runs under wine and gives the Windows
//! car-step figure beside the native one.
//!
//! Usage: `abi_cost ROUNDS STEPS`. Prints JSON: per round, wall ns per
//! car-step of the 20-car racing field stepped by `World::step` and by
//! `skidpad_world_step`, and ns per call of a pose and a telemetry channel
//! read both ways. The C functions are called through a function pointer
//! hidden from the optimiser, as a host's call into the shared library
//! is: nothing of them is inlined into the loop.

use std::hint::black_box;
use std::time::Instant;

use skidpad_c::status::SkidpadStatus;
use skidpad_c::values::SkidpadPose;
use skidpad_c::world::{
    SkidpadWorld, skidpad_world_channel, skidpad_world_free, skidpad_world_new, skidpad_world_pose,
    skidpad_world_step,
};
use skidpad_core::{CarId, Lod, World, channel_index};
use skidpad_fixtures::{RACING_DT, racing_world};

const CARS: usize = 20;
/// Reads per round of the pose and channel measurements.
const READS: usize = 200_000;

fn ok(status: SkidpadStatus) {
    assert_eq!(status, SkidpadStatus::Ok, "a C call failed");
}

/// The racing field moved into a C handle (the same bits as the Rust one).
fn c_world(world: World) -> *mut SkidpadWorld {
    let mut handle = std::ptr::null_mut();
    // SAFETY: a valid out pointer.
    ok(unsafe { skidpad_world_new(&mut handle) });
    // SAFETY: the handle was just made and nothing else holds it.
    unsafe { (*handle).world = world };
    handle
}

fn ns_per(start: Instant, count: usize) -> f64 {
    start.elapsed().as_nanos() as f64 / count as f64
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let (rounds, steps) = (
        args.first().copied().unwrap_or(5),
        args.get(1).copied().unwrap_or(300),
    );
    let step_c: unsafe extern "C" fn(*mut SkidpadWorld, f64) -> SkidpadStatus =
        black_box(skidpad_world_step);
    let pose_c: unsafe extern "C" fn(*const SkidpadWorld, u32, *mut SkidpadPose) -> SkidpadStatus =
        black_box(skidpad_world_pose);
    let channel_c: unsafe extern "C" fn(*const SkidpadWorld, u32, u32, *mut f64) -> SkidpadStatus =
        black_box(skidpad_world_channel);
    let speed = channel_index("speed").expect("a speed channel");
    let mut rows = Vec::new();
    for _ in 0..rounds {
        let mut rust = racing_world(CARS, Lod::Full, true).expect("the racing field");
        let start = Instant::now();
        for _ in 0..steps {
            rust.step(RACING_DT).expect("a step");
        }
        let rust_step = ns_per(start, steps * CARS);

        let c = c_world(racing_world(CARS, Lod::Full, true).expect("the racing field"));
        let start = Instant::now();
        for _ in 0..steps {
            // SAFETY: a live handle.
            ok(unsafe { step_c(c, RACING_DT) });
        }
        let c_step = ns_per(start, steps * CARS);
        // SAFETY: a live handle; read only.
        assert_eq!(
            rust.world_hash(),
            unsafe { &*c }.world.world_hash(),
            "the two fields diverged"
        );

        let ids: Vec<CarId> = rust.car_ids().collect();
        let start = Instant::now();
        for k in 0..READS {
            black_box(rust.pose(ids[k % CARS]).expect("a pose"));
        }
        let rust_pose = ns_per(start, READS);
        let mut pose = SkidpadPose::default();
        let start = Instant::now();
        for k in 0..READS {
            // SAFETY: a live handle and a local out value.
            ok(unsafe { pose_c(c, ids[k % CARS].to_raw(), &mut pose) });
            black_box(&pose);
        }
        let c_pose = ns_per(start, READS);

        let start = Instant::now();
        for k in 0..READS {
            black_box(rust.telemetry(ids[k % CARS]).expect("telemetry")[speed]);
        }
        let rust_channel = ns_per(start, READS);
        let mut value = 0.0;
        let start = Instant::now();
        for k in 0..READS {
            // SAFETY: a live handle and a local out value.
            ok(unsafe { channel_c(c, ids[k % CARS].to_raw(), speed as u32, &mut value) });
            black_box(value);
        }
        let c_channel = ns_per(start, READS);
        // SAFETY: the handle from `c_world`, not used again.
        unsafe { skidpad_world_free(c) };
        rows.push(format!(
            "{{\"rust_step_ns_per_car_step\":{rust_step:.1},\"c_step_ns_per_car_step\":{c_step:.1},\
             \"rust_pose_ns\":{rust_pose:.2},\"c_pose_ns\":{c_pose:.2},\
             \"rust_channel_ns\":{rust_channel:.2},\"c_channel_ns\":{c_channel:.2}}}"
        ));
    }
    println!(
        "{{\"cars\":{CARS},\"steps\":{steps},\"rounds\":[{}]}}",
        rows.join(",")
    );
}
