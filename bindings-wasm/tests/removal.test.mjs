// Removing cars from JS: ids are never given out again, a recording keeps
// the removal, and playback reports the removed car's pose as NaN from
// that step while the others play bit for bit. Resetting a car from JS:
// the recording keeps the reset and playback makes it again, and a
// replay file of any version tells its resets.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, repoRoot } from './helpers.mjs';

function threeCars() {
  const world = new sk.World();
  for (const x of [0, 40, 80]) world.addPresetCar('rwd_sports', { x, speed: 10 });
  return world;
}

test('a removed id names no car and is never given out again', () => {
  const world = threeCars();
  world.removeCar(1);
  assert.deepEqual([...world.carIds()], [0, 2]);
  assert.throws(() => world.pose(1), /unknown car id 1/);
  assert.throws(() => world.removeCar(1), /unknown car id 1/);
  assert.equal(world.addPresetCar('fwd_hatchback'), 3);
  assert.deepEqual([...world.carIds()], [0, 2, 3]);
  world.free();
});

test('a recording keeps a removal and plays it back', () => {
  const world = threeCars();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < 90; step++) recorder.step(world, DT);
  world.removeCar(1);
  for (let step = 0; step < 90; step++) recorder.step(world, DT);
  const replay = sk.decodeReplay(sk.encodeReplay(recorder.finish(world)));
  assert.equal(replay.carCount, 3);

  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const fields = sk.poseFields().length;
  while (player.advance()) {
    const poses = player.poses();
    assert.equal(poses.length, 3 * fields);
    const gone = poses.slice(fields, 2 * fields).every(Number.isNaN);
    assert.equal(gone, player.step >= 90, `car 1 at step ${player.step}`);
    assert.ok(!Number.isNaN(poses[0]) && !Number.isNaN(poses[2 * fields]));
  }
  assert.equal(player.desyncs, 0);
  assert.equal(player.worldHash(), world.worldHash());
  // Seeking back before the removal brings the car back.
  player.seek(30);
  assert.ok(!Number.isNaN(player.poses()[fields]));
  world.free();
});

test('a car reset from JS is recorded and reset again in playback, bit for bit', () => {
  const world = threeCars();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < 90; step++) recorder.step(world, DT);
  world.resetCar(1, { x: 200, y: 20, yaw: 1.5 });
  assert.deepEqual([world.pose(1).x, world.pose(1).y], [200, 20]);
  assert.throws(() => world.resetCar(1, { x: NaN }), /x is NaN/);
  assert.throws(() => world.resetCar(7, {}), /unknown car id 7/);
  for (let step = 0; step < 90; step++) recorder.step(world, DT);
  const bytes = sk.encodeReplay(recorder.finish(world));
  const report = sk.verifyReplay(bytes);
  assert.equal(report.valid, true);
  assert.equal(report.desyncs, 0);
  const replay = sk.decodeReplay(bytes);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  player.seek(180);
  assert.equal(player.worldHash(), world.worldHash());
  // Seeking back across the reset and forward again lands on it.
  player.seek(60);
  player.seek(120);
  player.seek(180);
  assert.equal(player.worldHash(), world.worldHash());
  // The replay lists it: made before step 90 was played.
  assert.deepEqual(replay.resets(), [{ car: 1, step: 90, x: 200, y: 20, yaw: 1.5, speed: 0 }]);
  // The file tells them without being decoded, as for an older version's.
  assert.deepEqual(sk.resetsOfReplayFile(bytes), replay.resets());
  world.free();
});

test('an older simulation version\'s replay tells its resets without being decoded', () => {
  const old = new Uint8Array(readFileSync(join(repoRoot, 'golden/v11/resets.skr')));
  assert.throws(() => sk.decodeReplay(old), /simulation version/);
  assert.deepEqual(sk.resetsOfReplayFile(old).map((r) => [r.step, r.car]), [[700, 1], [1200, 2], [1500, 0]]);
  const damaged = old.slice();
  damaged[damaged.length >> 1] ^= 1;
  assert.throws(() => sk.resetsOfReplayFile(damaged), /checksum/);
  assert.throws(() => sk.resetsOfReplayFile('not bytes'), RangeError);
});

test('a reset voids the lap in progress in the race layer', () => {
  const track = new sk.TrackView('brandwood');
  const world = new sk.World();
  for (const slot of [0, 1]) {
    world.setDriver(world.addPresetCar('rwd_sports', sk.gridPose(track, slot)), 'brandwood');
  }
  const timing = new sk.RaceTiming(track, world.poses());
  // Car 1 is reset where it is, 10 s into its first lap, as a game would
  // put a car back: that lap is void, its next counts, and car 0's lap
  // carries no reset.
  const laps = [];
  for (let step = 1; step <= 60 * 150 && laps.length < 3; step++) {
    world.step(DT);
    if (step === 600) {
      const p = world.pose(1);
      world.resetCar(1, { x: p.x, y: p.y, yaw: p.yaw, speed: p.speed });
      timing.noteReset(1);
    }
    laps.push(...timing.observe(step * DT, world.poses()).filter((e) => e.kind === 'lap'));
  }
  // Car 1's laps 1 and 2 and car 0's first (whatever else voids it).
  assert.equal(laps.length, 3, JSON.stringify(laps));
  for (const lap of laps) {
    const reset = lap.faults.some((f) => /was reset onto the track/.test(f));
    assert.equal(reset, lap.car === 1 && lap.lap === 1, JSON.stringify(lap));
    if (reset) assert.equal(lap.valid, false, JSON.stringify(lap));
  }
  assert.ok(laps.some((l) => l.car === 1 && l.lap === 2 && l.valid), JSON.stringify(laps));
  world.free();
});
