// wasm speed of the Full model in node: ns per car-step on the same
// racing field as the native criterion bench `car_step/full_1khz/20`
// (20 AI cars, 60 Hz host steps, 1 kHz substeps), plus the package's
// gzipped size. Prints JSON; `cargo xtask bench` divides the native figure
// by this one for the wasm/native ratio.
//
// Run: node bindings-wasm/bench/car_step.mjs (after `cargo xtask wasm`).

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

function carStepNs(level) {
  const world = sk.racingWorld(CARS, level, true);
  world.stepMany(STEPS_PER_ROUND, 1 / 60); // warm the JIT-compiled wasm
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

const report = {
  wasm_car_step_full_ns: carStepNs('full'),
  wasm_car_step_single_track_ns: carStepNs('singleTrack'),
  package_gzip_bytes: { browser_download: gzippedBytes(web), whole_package: gzippedBytes(all) },
  wasm_bytes: readFileSync(join(pkg, 'web', 'skidpad_wasm_bg.wasm')).length,
  node: process.version,
};
console.log(JSON.stringify(report, null, 2));
