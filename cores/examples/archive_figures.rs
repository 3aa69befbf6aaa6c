//! The archive's figures for BENCHMARKS.md, as JSON: verification of the
//! same replay natively and through its archived module (CPU seconds, one
//! thread), compiling a module cold and loading it precompiled, and the
//! bytes each version costs the repository.
//!
//! `cargo run --release -p skidpad-cores --example archive_figures`

use std::time::Instant;

use serde_json::json;
use skidpad_cores::{Archive, Sandbox, SandboxBudget, declared_car_steps};
use skidpad_golden::{Scenario, files::FILES};
use skidpad_replay::{Limits, NoHooks, decode_replay, read_replay_header, verify_replay};

/// CPU time of this process, seconds (the machines are shared and noisy).
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    // SAFETY: initialised by the call above (zeroed before it).
    let usage = unsafe { usage.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = cpu_seconds();
    let out = f();
    (out, cpu_seconds() - start)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let version = skidpad_core::SIMULATION_VERSION;
    let name = "long_run.skr";
    let dir = format!("v{version}");
    let bytes = FILES
        .iter()
        .find(|(v, n, _)| *v == dir && *n == name)
        .map(|(_, _, b)| *b)
        .expect("the current long_run golden");
    let header = read_replay_header(bytes).expect("header");
    let car_steps = declared_car_steps(&header);
    let archive = Archive::embedded().expect("archive");
    let sandbox = Sandbox::new().expect("sandbox");

    // Compiling: cold (Cranelift) and from a precompiled artefact, every
    // version, wall-clock (compilation uses threads).
    let mut cold = Vec::new();
    let mut cached = Vec::new();
    let mut sizes = Vec::new();
    for v in archive.versions() {
        let core = archive.core(v).expect("listed");
        let start = Instant::now();
        sandbox.load(core).expect("loads");
        cold.push(start.elapsed().as_secs_f64());
        let compiled = sandbox.precompile(core).expect("precompiles");
        let start = Instant::now();
        // SAFETY: produced just above by this sandbox.
        unsafe { sandbox.load_precompiled(v, &compiled) }.expect("deserialises");
        cached.push(start.elapsed().as_secs_f64());
        let e = core.entry();
        sizes.push(json!({
            "version": v,
            "module_bytes": e.bytes,
            "repository_bytes": e.compressed_bytes,
            "precompiled_bytes": compiled.len(),
        }));
    }

    // Verification, interleaved native / archived, three rounds each.
    let replay = decode_replay(bytes).expect("decodes");
    let core = sandbox
        .load(archive.core(version).expect("current"))
        .expect("loads");
    let (mut native, mut archived) = (Vec::new(), Vec::new());
    let mut fuel = 0;
    for _ in 0..3 {
        let hooks = Scenario::game_logic(&replay).unwrap_or_else(|| Box::new(NoHooks));
        let (report, t) = timed(|| verify_replay(&replay, hooks, &Limits::default()));
        assert!(report.expect("verifies").is_valid());
        native.push(t);
        let (verdict, t) = timed(|| core.verify(bytes, car_steps, SandboxBudget::default()));
        let verdict = verdict.expect("verifies archived");
        assert!(verdict.is_valid());
        fuel = verdict.fuel_used;
        archived.push(t);
    }
    let (native, archived) = (median(native), median(archived));
    let report = json!({
        "replay": format!("golden/{dir}/{name}"),
        "car_steps": car_steps,
        "native_us_per_car_step": native * 1e6 / car_steps as f64,
        "archived_us_per_car_step": archived * 1e6 / car_steps as f64,
        "archived_over_native": archived / native,
        "fuel_per_car_step": fuel as f64 / car_steps as f64,
        "compile_cold_s_median": median(cold),
        "load_precompiled_s_median": median(cached),
        "versions": sizes,
    });
    println!("{}", serde_json::to_string_pretty(&report).expect("json"));
}
