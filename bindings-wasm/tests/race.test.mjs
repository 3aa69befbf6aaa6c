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

// A lap lost mid-lap, said at once in the words its completed lap will
// give; a reset back onto the line at `rejoinPose`, voiding the lap too.
test('lapFaults says why the lap in progress is lost; rejoinPose puts a car back on the line', () => {
  const track = new sk.TrackView('brandwood');
  const [x, y, dx, dy] = track.pointAt(200);
  // Beyond the kerb on the left: the road's half width, the kerb and 0.5 m.
  const off = track.width / 2 + track.kerbWidth + 0.5;
  const pose = (px, py) => Float64Array.of(px, py, 0, 0, 0, 0, 0, 0);
  const [sx, sy] = track.pointAt(track.length - 20);
  const timing = new sk.RaceTiming(track, pose(sx, sy));
  // Cross the line, then drive to 190 m on the line: a clean lap so far.
  let time = 0;
  for (let d = -20; d <= 190; d += 5) {
    const [px, py] = track.pointAt((d + track.length) % track.length);
    timing.observe((time += 0.1), pose(px, py));
  }
  assert.deepEqual(timing.lapFaults(0), []);
  timing.observe((time += 0.1), pose(x - dy * off, y + dx * off));
  const faults = timing.lapFaults(0);
  assert.equal(faults.length, 1);
  assert.match(faults[0], /^left the track at t = \d+\.\d{3} s \(\d+\.\d m from the centre line, limit 7\.0 m\)$/);
  const back = sk.rejoinPose(track, x - dy * off, y + dx * off);
  assert.ok(Math.hypot(back.x - x, back.y - y) < 0.5, `rejoined on the line: ${JSON.stringify(back)}`);
  assert.ok(Math.abs(back.yaw - Math.atan2(dy, dx)) < 0.05, 'facing along the track');
  assert.equal(back.speed, 0);
  timing.noteReset(0);
  timing.observe(time + 0.1, pose(back.x, back.y));
  assert.match(timing.lapFaults(0).at(-1), /^was reset onto the track at t = /);
  assert.deepEqual(timing.lapFaults(7), [], 'an unknown car has no faults');
  assert.throws(() => sk.rejoinPose(track, NaN, 0), /finite/);
});
