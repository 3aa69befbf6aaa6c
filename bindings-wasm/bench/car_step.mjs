// wasm speed in node on the same racing field as the native benchmarks
// (20 AI cars, 60 Hz host steps; Full at the presets' 300 Hz substeps,
// SingleTrack at 120 Hz).
//
// Two modes (run after `cargo xtask wasm`):
// - `node bindings-wasm/bench/car_step.mjs`: wall-clock ns per car-step of
//   both models plus the package's gzipped size, as JSON.
// - `node bindings-wasm/bench/car_step.mjs cpu full|single_track ROUNDS
//   STEPS`: CPU ns per car-step for each round, as JSON, the twin of the
//   native `car_step_cpu` example. `cargo xtask bench` alternates the two
//   programs and compares CPU time, so load from other work on the
//   machine does not tilt the wasm/native ratio.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = join(here, '..', 'pkg');
const sk = createRequire(import.meta.url)(join(pkg, 'node', 'skidpad_wasm.js'));

const CARS = 20;
const STEPS_PER_ROUND = 60;
const ROUNDS = 15;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// Steps for a second and a half before anything is measured, not one
// round: node compiles the wasm's optimised tier on background threads
// meanwhile, and process CPU time counts them. With a round of warm-up the
// single-track model's first measured rounds came out at 2.4× the settled
// figure.
function warmUp(world, steps) {
  const until = process.hrtime.bigint() + 1_500_000_000n;
  while (process.hrtime.bigint() < until) {
    world.stepMany(steps, 1 / 60);
  }
}

function carStepNs(level) {
  const world = sk.racingWorld(CARS, level, true);
  warmUp(world, STEPS_PER_ROUND);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    world.stepMany(STEPS_PER_ROUND, 1 / 60);
    const ns = Number(process.hrtime.bigint() - start);
    rounds.push(ns / (STEPS_PER_ROUND * CARS));
  }
  world.free();
  return median(rounds);
}

// gzip -9 size of what a browser downloads (web/*.js + .wasm) and of the
// whole package directory.
function gzippedBytes(files) {
  return files.reduce((sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length, 0);
}
const list = (dir) => readdirSync(dir).map((f) => join(dir, f));
const web = list(join(pkg, 'web')).filter((f) => /\.(js|wasm)$/.test(f));
const all = ['web', 'node'].flatMap((d) => list(join(pkg, d))).concat([join(pkg, 'package.json'), join(pkg, 'README.md')]);

// Process CPU time (user + system), ns.
function cpuNs() {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

if (process.argv[2] === 'cpu') {
  const level = process.argv[3] === 'single_track' ? 'singleTrack' : 'full';
  const rounds = Number(process.argv[4] ?? 5);
  const steps = Number(process.argv[5] ?? 60);
  const world = sk.racingWorld(CARS, level, true);
  warmUp(world, steps);
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    const start = cpuNs();
    world.stepMany(steps, 1 / 60);
    perRound.push((cpuNs() - start) / (steps * CARS));
  }
  world.free();
  console.log(JSON.stringify({ cpu_ns_per_car_step: perRound, cars: CARS }));
  process.exit(0);
}

const report = {
  wasm_car_step_full_ns: carStepNs('full'),
  wasm_car_step_single_track_ns: carStepNs('singleTrack'),
  package_gzip_bytes: { browser_download: gzippedBytes(web), whole_package: gzippedBytes(all) },
  wasm_bytes: readFileSync(join(pkg, 'web', 'skidpad_wasm_bg.wasm')).length,
  node: process.version,
};
console.log(JSON.stringify(report, null, 2));
