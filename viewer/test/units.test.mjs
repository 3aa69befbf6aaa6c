// The viewer's pure modules under node --test: interpolation and cuts
// (recording.mjs), the wall clock and the event cursor (clock.mjs) and lap
// crossings (laps.mjs). The page as a whole is tested in Chromium
// (run.mjs).

import test from 'node:test';
import assert from 'node:assert/strict';
import { Recording, POSE } from '../src/recording.mjs';
import { Clock, EventCursor, LIVE_DELAY } from '../src/clock.mjs';
import { LapDetector } from '../src/laps.mjs';

const DT = 1 / 60;

/** A one-car recording of `n` samples whose pose comes from `at(step)`. */
function recording(n, at) {
  const meta = { cars: [{}], channels: [], samples: n, steps: n - 1, track: null };
  const rec = new Recording(meta);
  const batch = {
    from: 0,
    count: n,
    steps: new Float64Array(n),
    times: new Float64Array(n),
    poses: new Float64Array(n * POSE),
    distances: null,
    telemetry: new Float32Array(0),
    events: [],
  };
  for (let i = 0; i < n; i++) {
    batch.steps[i] = i;
    batch.times[i] = i * DT;
    batch.poses.set(at(i), i * POSE);
  }
  rec.append(batch);
  return rec;
}

/** Straight line at 20 m/s, turning slowly, yaw crossing ±π. */
const cruise = (i) => [20 * i * DT, 0, 0.5, Math.PI - 0.05 + 0.01 * i, 0, 0, 0, 20];

test('poseAt returns each sample exactly at its own time', () => {
  const rec = recording(30, cruise);
  const out = new Float64Array(POSE);
  for (let i = 0; i < 30; i++) {
    assert.deepEqual(Array.from(rec.poseAt(rec.times[i], 0, out)), cruise(i));
  }
});

test('between samples position follows the motion and yaw takes the short way round', () => {
  const rec = recording(30, cruise);
  const out = new Float64Array(POSE);
  rec.poseAt(10.5 * DT, 0, out);
  assert.ok(Math.abs(out[0] - 20 * 10.5 * DT) < 1e-9, `x ${out[0]}`);
  // Samples 4 and 5 have yaw π − 0.01 and π + 0.00 (wrapped: −π); the
  // middle is near π, not near 0.
  const raw = [4, 5].map((i) => Math.atan2(Math.sin(cruise(i)[3]), Math.cos(cruise(i)[3])));
  const wrapped = recording(30, (i) => {
    const p = cruise(i);
    p[3] = Math.atan2(Math.sin(p[3]), Math.cos(p[3]));
    return p;
  });
  wrapped.poseAt(4.5 * DT, 0, out);
  assert.ok(Math.cos(out[3]) < -0.99, `yaw ${out[3]} between ${raw}`);
  // Outside the samples the ends are held.
  assert.equal(rec.poseAt(-1, 0, out)[0], 0);
  assert.equal(rec.poseAt(99, 0, out)[0], cruise(29)[0]);
});

test('a teleport is a cut: no blending across it, the pose snaps to the sample after', () => {
  const jump = (i) => {
    const p = cruise(i);
    if (i >= 10) p[1] = 50;
    return p;
  };
  const rec = recording(20, jump);
  assert.equal(rec.cuts[10], 1);
  assert.equal(rec.cuts[9], 0);
  const out = new Float64Array(POSE);
  rec.poseAt(9.5 * DT, 0, out);
  assert.deepEqual(Array.from(out), jump(10));
  // The slopes next to the cut do not reach across it.
  rec.poseAt(10.5 * DT, 0, out);
  assert.equal(out[1], 50);
});

test('sampleAt and sampleOfStep find samples by time and by step', () => {
  const rec = recording(10, cruise);
  assert.equal(rec.sampleAt(3 * DT), 3);
  assert.equal(rec.sampleAt(3.9 * DT), 3);
  assert.equal(rec.sampleOfStep(7), 7);
  assert.equal(rec.sampleOfStep(70), 9);
  assert.throws(() => rec.append({ from: 3, count: 0 }), /samples from 3 after 10/);
});

test('the clock follows the wall clock times the speed, both ways, and stops at the ends', () => {
  const clock = new Clock();
  clock.setRange(0, 10);
  clock.setSpeed(2);
  clock.play(1);
  clock.tick(1000);
  assert.equal(clock.tick(1500), 1);
  assert.equal(clock.tick(2000), 2);
  clock.play(-1);
  clock.tick(3000);
  assert.equal(clock.tick(3250), 1.5);
  assert.equal(clock.tick(5000), 0);
  assert.equal(clock.paused, true, 'a replay stops at its start');
  clock.seek(42);
  assert.equal(clock.time, 10);
  // A live race follows its newest sample, a little behind.
  const live = new Clock();
  live.live = true;
  live.follow();
  live.setRange(0, 20);
  assert.equal(live.time, 20 - LIVE_DELAY);
  live.tick(0);
  assert.equal(live.tick(10_000), 20 - LIVE_DELAY);
});

test('events fire once when crossed forward, never after a seek or backwards', () => {
  const events = [{ time: 1 }, { time: 2 }, { time: 2.5 }];
  const cursor = new EventCursor();
  assert.deepEqual(cursor.crossed(events, 0.9), []);
  assert.deepEqual(cursor.crossed(events, 1.5), [events[0]]);
  assert.deepEqual(cursor.crossed(events, 1.5), []);
  assert.deepEqual(cursor.crossed(events, 2.4), [events[1]]);
  assert.deepEqual(cursor.crossed(events, 2.6), [events[2]]);
  assert.deepEqual(cursor.crossed(events, 0.5), [], 'backwards');
  cursor.reset();
  assert.deepEqual(cursor.crossed(events, 2.2), [], 'after a seek the first frame only sets the time');
  assert.deepEqual(cursor.crossed(events, 9), [events[2]], 'a long frame still fires what it crossed');
});

test('laps start at each forward crossing of the line, interpolated within the step', () => {
  const L = 1000;
  // A stand-in for the wasm TrackView: the x coordinate is the distance.
  const track = { length: L, locate: (x) => [((x % L) + L) % L, 0] };
  const laps = new LapDetector(track, 1);
  const out = new Float64Array(1);
  const at = (x, t) => {
    laps.observe(Math.round(t * 10), t, [x, 0], out, 0);
    return laps.take();
  };
  assert.deepEqual(at(990, 0), []);
  const [first] = at(1010, 1);
  assert.deepEqual([first.lap, first.time, first.lapTime], [1, 0.5, null]);
  assert.deepEqual(at(1500, 20), []);
  const [second] = at(1995, 50);
  assert.equal(second, undefined);
  const [crossed] = at(2005, 51);
  assert.deepEqual([crossed.lap, crossed.time, crossed.lapTime], [2, 50.5, 50]);
  // Backing over the line and driving over it again is not a lap.
  assert.deepEqual(at(1995, 52), []);
  assert.deepEqual(at(2005, 53), []);
  assert.deepEqual(at(2500, 70), []);
  assert.deepEqual(at(2995, 99), []);
  assert.equal(at(3001, 100)[0].lap, 3);
  // A car the recording removed (NaN pose) has no distance and ends no lap.
  assert.deepEqual(at(3995, 120), []);
  assert.deepEqual(at(NaN, 121), []);
  assert.ok(Number.isNaN(out[0]));
  assert.deepEqual(at(4005, 122), [], 'no crossing is made up across the gap');
});
