// One lap timing on every target: the wasm race layer (RaceTiming fed the
// player's poses, as the viewer feeds it) gives the golden replays the
// same laps, to the microsecond, as the native `skidpad export` (the race
// layer in Rust). The native binary comes from SKIDPAD_BIN, which
// `cargo xtask test` sets.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, repoRoot } from './helpers.mjs';

const bin = process.env.SKIDPAD_BIN;
const golden = join(repoRoot, `golden/v${sk.simulationVersion()}`);
const micros = (t) => Math.round(t * 1e6);

function nativeLaps(file) {
  const json = JSON.parse(execFileSync(bin, ['export', file], { maxBuffer: 1 << 30 }).toString());
  return json.events
    .filter((e) => e.kind === 'lap')
    .map((e) => [e.car, e.lap, micros(e.time), e.valid]);
}

function wasmLaps(file) {
  const replay = sk.decodeReplay(new Uint8Array(readFileSync(file)));
  const track = new sk.TrackView(replay.metadata().track);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const timing = new sk.RaceTiming(track, player.poses());
  const laps = [];
  let time = 0;
  while (player.advance()) {
    time += DT;
    for (const e of timing.observe(time, player.poses())) {
      if (e.kind === 'lap') laps.push([e.car, e.lap, micros(e.time), e.valid]);
    }
  }
  assert.equal(player.desyncs, 0);
  return laps;
}

const order = (a, b) => a[0] - b[0] || a[1] - b[1];

for (const name of ['flat_lap.skr', 'mixed_field.skr', 'long_run.skr']) {
  test(`${name}: the same laps in wasm and natively`, { skip: !bin && 'SKIDPAD_BIN not set (cargo xtask test sets it)' }, () => {
    const file = join(golden, name);
    const native = nativeLaps(file).sort(order);
    assert.ok(native.length > 0, 'the golden race has laps');
    assert.deepEqual(wasmLaps(file).sort(order), native);
  });
}
