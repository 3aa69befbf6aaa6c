//! Peak memory while decoding crafted replays of 2^18 .. 2^26 steps.
//!
//! The bound under test (stated in `replay/FORMAT.md`): the decoder's peak
//! heap is at most 8 × the input's size plus `Limits::max_decoded_bytes`
//! plus 1 MiB; a replay whose declared sizes would need more is refused
//! before the allocation, with only the constant spent. One test in its own
//! binary, so the counting allocator sees no other test's allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use skidpad_core::{
    CarId, CarInput, LodSetting, SNAPSHOT_LEN, SurfaceId, World, WorldConfig, preset,
};
use skidpad_replay::{
    CarKeyframe, CarTrack, Keyframe, Limits, Replay, ReplayError, ReplayHeader, Runs,
    decode_replay_with, encode_replay,
};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

/// One car, `steps` steps of constant input: the smallest file that
/// declares the most decoding work. With `body` false only the header is
/// honest (no inputs, no keyframes): what an attacker would send.
fn crafted(steps: u64, body: bool) -> Replay {
    let def = preset("fwd_hatchback").unwrap();
    let world = World::new(WorldConfig::default()).unwrap();
    let header = ReplayHeader {
        core_version: skidpad_core::CORE_VERSION.into(),
        simulation_version: skidpad_core::SIMULATION_VERSION,
        car_count: 1,
        step_count: steps,
        keyframe_every: 600,
        start_step: 0,
        gravity: world.config().gravity,
        air_density: world.config().air_density,
        surfaces: world.config().surfaces.clone(),
        metadata: Vec::new(),
        source_cars: vec![CarId::from_raw(0)],
    };
    let keyframes = if body {
        let count = header.keyframe_count();
        (0..count)
            .map(|i| Keyframe {
                step: (i * 600).min(steps),
                world_hash: [0; 32],
                cars: vec![CarKeyframe {
                    snapshot: vec![0; SNAPSHOT_LEN],
                    hash: *blake3::hash(&[0; SNAPSHOT_LEN]).as_bytes(),
                }],
                game_state: Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let inputs = if body {
        vec![
            CarInput {
                throttle: 1.0,
                gear: 1.0,
                ..CarInput::default()
            };
            steps as usize
        ]
    } else {
        Vec::new()
    };
    let run = |v| Runs::from_runs([(steps, v)]).unwrap();
    Replay {
        header,
        definitions: vec![def],
        dt: Runs::from_runs([(steps, 1.0 / 60.0)]).unwrap(),
        cars: vec![CarTrack {
            inputs,
            lod: Runs::from_runs([(steps, LodSetting::default())]).unwrap(),
            surfaces: [
                run(SurfaceId(0)),
                run(SurfaceId(0)),
                run(SurfaceId(0)),
                run(SurfaceId(0)),
            ],
            removed_at: None,
            arrival: None,
            resets: Vec::new(),
        }],
        keyframes,
        ghosts: None,
        ground: None,
        rewinds: Vec::new(),
    }
}

/// Peak heap above the current level while decoding `bytes`.
fn peak_while(bytes: &[u8], limits: &Limits) -> (usize, Result<(), ReplayError>) {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let result = decode_replay_with(bytes, limits).map(drop);
    (PEAK.load(Ordering::SeqCst) - base, result)
}

#[test]
fn decoding_peak_memory_is_bounded_by_the_input_and_the_limit() {
    let limits = Limits::default();
    let constant = limits.max_decoded_bytes as usize + MIB;
    // Decoded within the default limits: the whole body is there.
    for log2 in [18_u32, 20, 22] {
        let bytes = encode_replay(&crafted(1 << log2, true)).unwrap();
        let (peak, result) = peak_while(&bytes, &limits);
        result.unwrap();
        println!(
            "2^{log2} steps: {} byte file, peak {peak} bytes",
            bytes.len()
        );
        // The decoded inputs alone are 48 bytes a step.
        assert!(peak >= 48 << log2);
        assert!(peak <= 8 * bytes.len() + constant, "2^{log2}: {peak}");
    }
    // Declared but over the default limits: refused before allocating,
    // with or without a body behind the header.
    for log2 in [24_u32, 26] {
        let bodies: &[bool] = if log2 == 24 { &[false, true] } else { &[false] };
        for &body in bodies {
            let bytes = encode_replay(&crafted(1 << log2, body)).unwrap();
            let (peak, result) = peak_while(&bytes, &limits);
            assert!(
                matches!(
                    result,
                    Err(ReplayError::LimitExceeded { limit: "steps", .. })
                ),
                "{result:?}"
            );
            println!(
                "2^{log2} steps: {} byte file refused, peak {peak} bytes",
                bytes.len()
            );
            assert!(peak <= 8 * bytes.len() + MIB, "2^{log2}: {peak}");
        }
    }
    // With the step limit raised, the memory limit still holds the line.
    let raised = Limits {
        max_steps: u64::MAX,
        max_car_substeps: u64::MAX,
        ..limits
    };
    let bytes = encode_replay(&crafted(1 << 24, true)).unwrap();
    let (peak, result) = peak_while(&bytes, &raised);
    assert!(
        matches!(
            result,
            Err(ReplayError::LimitExceeded {
                limit: "decoded bytes",
                ..
            })
        ),
        "{result:?}"
    );
    assert!(peak <= 8 * bytes.len() + MIB, "{peak}");
}
