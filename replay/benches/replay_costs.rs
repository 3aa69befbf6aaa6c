//! Replay figures on the reference race: 20 AI cars of mixed presets at
//! 60 Hz for 10 minutes (36 000 steps), with the default keyframe interval
//! (600) and cache budget (64 MiB).
//!
//! Reports: recorder overhead over plain stepping; replay size per
//! car-minute (raw 48-byte inputs, gzip -9 of them, encoded, encoded and
//! gzipped); header-only read time; seek latency p50/p99 with a cold and a
//! warm cache; verification speed as a multiple of real time.
//!
//! Run: `cargo bench -p skidpad-replay --bench replay_costs` (about a minute).
//! `REPLAY_BENCH_MINUTES` shortens the race for a quick look;
//! `REPLAY_BENCH_KEYFRAME_EVERY` changes the keyframe interval.

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;
use skidpad_core::{CarInput, Lod, LodSetting, Track, World, WorldConfig, preset};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayPlayer, ReplayRecorder, create_replay_world,
    encode_replay, encode_replay_gzip, read_replay_header, verify,
};

const CARS: usize = 20;
const DT: f64 = 1.0 / 60.0;
const BLOCK: u64 = 600;

fn reference_world() -> World {
    let track = Arc::new(Track::builtin("brandwood").expect("track"));
    let mut world = World::new(WorldConfig::default()).expect("world");
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..CARS {
        let id = world
            .add_car(
                &preset(names[k % 2]).expect("preset"),
                skidpad_core::race::pose_along(
                    &track,
                    track.length() * k as f64 / CARS as f64,
                    0.0,
                    15.0,
                ),
            )
            .expect("car");
        world.set_driver(id, Some(track.clone())).expect("driver");
        world.set_lod(id, LodSetting::new(Lod::Full)).expect("lod");
    }
    world
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// xorshift: a fixed, cheap sequence of seek targets.
struct Targets(u64);

impl Targets {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn main() {
    let minutes: u64 = std::env::var("REPLAY_BENCH_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(10);
    let steps = minutes * 60 * 60;

    // Recorder overhead: two identical worlds, alternating blocks of plain
    // and recorded stepping, in A-B-B-A order, so that machine noise and
    // drift hit both alike.
    let mut plain = reference_world();
    let mut recorded = reference_world();
    // The race's length is known, so its input memory is reserved up front
    // as a game would at load (`REPLAY_BENCH_RESERVE=0` measures without:
    // then most of a capture's time is the system mapping fresh pages).
    let reserve = std::env::var("REPLAY_BENCH_RESERVE").map_or(true, |v| v != "0");
    let options = RecorderOptions {
        reserve_steps: if reserve { steps } else { 0 },
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&recorded, options).expect("recorder");
    let (mut t_plain, mut t_recorded) = (Duration::ZERO, Duration::ZERO);
    let mut t_capture = Duration::ZERO;
    let mut done = 0;
    let mut block = 0;
    while done < steps {
        let n = BLOCK.min(steps - done);
        let mut run_plain = || {
            let start = Instant::now();
            for _ in 0..n {
                plain.step(DT).expect("step");
            }
            start.elapsed()
        };
        let mut run_recorded = || {
            let start = Instant::now();
            for _ in 0..n {
                recorded.step(DT).expect("step");
                let before_capture = Instant::now();
                recorder.after_step(&recorded).expect("capture");
                t_capture += before_capture.elapsed();
            }
            start.elapsed()
        };
        if block % 2 == 0 {
            t_plain += run_plain();
            t_recorded += run_recorded();
        } else {
            t_recorded += run_recorded();
            t_plain += run_plain();
        }
        done += n;
        block += 1;
    }
    assert_eq!(plain.world_hash(), recorded.world_hash());
    let replay = recorder.finish(&recorded).expect("finish");
    let overhead = (t_recorded.as_secs_f64() / t_plain.as_secs_f64() - 1.0) * 100.0;
    let capture_share = t_capture.as_secs_f64() / (t_recorded - t_capture).as_secs_f64() * 100.0;

    // Sizes.
    let mut raw = Vec::with_capacity(steps as usize * CARS * CarInput::SIZE);
    for step in 0..steps as usize {
        for car in &replay.cars {
            raw.extend_from_slice(bytemuck_bytes(&car.inputs[step]));
        }
    }
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&raw).expect("gzip");
    let gzip_raw = gz.finish().expect("gzip").len();
    let encoded = encode_replay(&replay).unwrap();
    let encoded_gzip = encode_replay_gzip(&replay).unwrap().len();
    let car_minutes = (CARS as u64 * minutes) as f64;

    // Header-only read.
    let reps = 2000;
    let start = Instant::now();
    for _ in 0..reps {
        black_box(read_replay_header(black_box(&encoded)).expect("header"));
    }
    let header_us = start.elapsed().as_secs_f64() * 1e6 / f64::from(reps);

    // Cold seeks: a fresh player (empty cache) per seek.
    let mut targets = Targets(0x2545_f491_4f6c_dd1d);
    let mut cold = Vec::new();
    for _ in 0..40 {
        let mut player = ReplayPlayer::new(
            create_replay_world(&replay).expect("world"),
            &replay,
            NoHooks,
        )
        .expect("player");
        let target = targets.next(steps + 1);
        let start = Instant::now();
        player.seek(target).expect("seek");
        cold.push(start.elapsed());
    }
    cold.sort();

    // Warm seeks: play through once, then seek anywhere.
    let mut player = ReplayPlayer::new(
        create_replay_world(&replay).expect("world"),
        &replay,
        NoHooks,
    )
    .expect("player");
    player.play_to_end().expect("play");
    let (interval, points, cache_bytes) = player.cache_stats();
    let mut warm = Vec::new();
    for _ in 0..400 {
        let target = targets.next(steps + 1);
        let start = Instant::now();
        player.seek(target).expect("seek");
        warm.push(start.elapsed());
    }
    warm.sort();
    assert_eq!(player.desyncs(), 0);

    // Verification speed.
    let start = Instant::now();
    let report = verify(&encoded, NoHooks, &Limits::default()).expect("verify");
    let verify_s = start.elapsed().as_secs_f64();
    assert!(report.is_valid());

    if let Ok(dir) = std::env::var("SKIDPAD_BENCH_OUT") {
        // Read by `cargo xtask bench` for target/bench-report.json.
        let json = format!(
            "{{\"recorder_overhead_pct\":{capture_share},\"recorder_ab_overhead_pct\":{overhead},\"replay_bytes_per_car_min\":{{\"raw\":{},\"gzip_raw\":{},\"encoded\":{},\"encoded_gzip\":{}}},\"seek_ms\":{{\"cold_p50\":{},\"cold_p99\":{},\"warm_p50\":{},\"warm_p99\":{}}},\"verify_realtime_factor\":{},\"header_read_us\":{header_us}}}",
            raw.len() as f64 / car_minutes,
            gzip_raw as f64 / car_minutes,
            encoded.len() as f64 / car_minutes,
            encoded_gzip as f64 / car_minutes,
            percentile(&cold, 0.5),
            percentile(&cold, 0.99),
            percentile(&warm, 0.5),
            percentile(&warm, 0.99),
            report.duration / verify_s,
        );
        std::fs::write(std::path::Path::new(&dir).join("replay-bench.json"), json)
            .expect("write bench json");
    }
    println!("reference race: {CARS} AI cars, 60 Hz, {minutes} min ({steps} steps)");
    println!(
        "recorder overhead, time inside capture over time stepping: {capture_share:.3} % ({:.3} s of {:.2} s)",
        t_capture.as_secs_f64(),
        t_recorded.as_secs_f64()
    );
    println!(
        "A/B blocks, recorded world over plain world (includes noise): {overhead:+.3} % (plain {:.2} s, recorded {:.2} s)",
        t_plain.as_secs_f64(),
        t_recorded.as_secs_f64()
    );
    println!(
        "bytes per car-minute: raw {:.0}, gzip -9 of raw {:.0}, encoded {:.0}, encoded+gzip {:.0}",
        raw.len() as f64 / car_minutes,
        gzip_raw as f64 / car_minutes,
        encoded.len() as f64 / car_minutes,
        encoded_gzip as f64 / car_minutes
    );
    println!(
        "encoded / gzip(raw) = {:.3}",
        encoded.len() as f64 / gzip_raw as f64
    );
    println!("header-only read: {header_us:.2} µs");
    println!(
        "seek cold: p50 {:.2} ms, p99 {:.2} ms ({} seeks)",
        percentile(&cold, 0.5),
        percentile(&cold, 0.99),
        cold.len()
    );
    println!(
        "seek warm: p50 {:.2} ms, p99 {:.2} ms ({} seeks; cache every {interval} steps, {points} points, {:.1} MiB)",
        percentile(&warm, 0.5),
        percentile(&warm, 0.99),
        warm.len(),
        cache_bytes as f64 / (1 << 20) as f64
    );
    println!(
        "verify: {verify_s:.2} s for {:.0} s of racing = {:.1}× real time",
        report.duration,
        report.duration / verify_s
    );
}

fn bytemuck_bytes(input: &CarInput) -> &[u8] {
    bytemuck::bytes_of(input)
}
