// Ghosts in JS: record, encode, decode, play, slice, quaternions.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, goldenHashes } from './helpers.mjs';

function recordGhost(steps = 600) {
  const world = new sk.World();
  const car = world.addPresetCar('rwd_sports', { speed: 10 });
  world.setDriver(car, 'brandwood');
  const recorder = new sk.GhostRecorder(car);
  const poses = [];
  for (let k = 0; k < steps; k++) {
    world.step(DT);
    recorder.afterStep(world);
    poses.push(world.pose(car));
  }
  return { ghost: recorder.finish(), poses, recorder };
}

test('a ghost round-trips through .skg bytes bit for bit', () => {
  const { ghost } = recordGhost();
  assert.equal(ghost.frameCount, 600);
  const bytes = sk.encodeGhost(ghost);
  assert.ok(bytes.length < 18 * 600, `${bytes.length} bytes for 600 frames`);
  const back = sk.decodeGhost(bytes);
  assert.deepEqual(back.frames(), ghost.frames());
  assert.deepEqual(sk.encodeGhost(back), bytes);
  // Ghost.fromFrames rebuilds the same ghost from its packed frames.
  assert.deepEqual(sk.encodeGhost(sk.Ghost.fromFrames(ghost.frames())), bytes);
});

test('poseAt is exact at frames, linear between them and clamped', () => {
  const { ghost, poses } = recordGhost(120);
  const player = new sk.GhostPlayer(ghost);
  const frames = ghost.frames();
  const at = (k, field) => frames[9 * k + ['t', 'x', 'y', 'z', 'yaw', 'pitch', 'roll', 'steer', 'speed'].indexOf(field)];
  for (const k of [0, 1, 59, 119]) {
    const pose = player.poseAt(at(k, 't'));
    assert.equal(pose.x, at(k, 'x'));
    assert.equal(pose.speed, at(k, 'speed'));
    assert.equal(Math.fround(poses[k].x), pose.x, 'frames are the f32 car pose');
  }
  const mid = player.poseAt((at(10, 't') + at(11, 't')) / 2);
  assert.ok(Math.abs(mid.x - (at(10, 'x') + at(11, 'x')) / 2) < 1e-4);
  assert.deepEqual(player.poseAt(-5), player.poseAt(0));
  assert.deepEqual(player.poseAt(1e9), player.poseAt(at(119, 't')));
  const out = new Float32Array(8);
  player.poseAtInto(at(30, 't'), out);
  assert.equal(out[0], at(30, 'x'));
  assert.equal(out[7], at(30, 'speed'));
});

test('restart makes the latest pose frame 0 of the next lap', () => {
  const { recorder } = recordGhost(30);
  recorder.restart();
  const ghost = recorder.finish();
  assert.equal(ghost.frameCount, 1);
  assert.equal(ghost.duration, 0);
});

test('slices keep boundary frames and re-time from zero', () => {
  const { ghost } = recordGhost(300);
  const frames = ghost.frames();
  const t = (k) => frames[9 * k];
  const slice = sk.sliceGhost(ghost, t(100), t(200));
  assert.equal(slice.frameCount, 101);
  assert.equal(slice.frames()[0], 0);
  assert.equal(slice.frames()[1], frames[9 * 100 + 1]);
  const byIndex = sk.sliceGhostFrames(ghost, 100, 201);
  assert.deepEqual(byIndex.frames(), slice.frames());
  assert.throws(() => sk.sliceGhost(ghost, 1e6, 2e6), RangeError);
  assert.throws(() => sk.sliceGhost(ghost, NaN, 1), RangeError);
});

test('ghostQuaternion composes yaw, pitch and roll z-y-x', () => {
  const q = sk.ghostQuaternion({ yaw: Math.PI / 2, pitch: 0, roll: 0 });
  assert.ok(q instanceof Float32Array);
  assert.ok(Math.abs(q[2] - Math.SQRT1_2) < 1e-6 && Math.abs(q[3] - Math.SQRT1_2) < 1e-6);
  assert.ok(Math.abs(q[0]) < 1e-7 && Math.abs(q[1]) < 1e-7);
  // Independent check: rotate the body x axis by q and compare with the
  // direction a z-y-x rotation gives it.
  const [yaw, pitch, roll] = [0.7, -0.3, 0.2];
  const [x, y, z, w] = sk.ghostQuaternion({ yaw, pitch, roll });
  const forward = [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)];
  const expected = [Math.cos(yaw) * Math.cos(pitch), Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch)];
  forward.forEach((v, k) => assert.ok(Math.abs(v - expected[k]) < 1e-6, `axis ${k}`));
  assert.throws(() => sk.ghostQuaternion({ yaw: 'a', pitch: 0, roll: 0 }), RangeError);
});

test('native golden ghosts decode in wasm and re-encode to the same bytes', () => {
  const { dir, table } = goldenHashes();
  const ghosts = Object.keys(table).filter((f) => f.endsWith('.skg'));
  assert.ok(ghosts.length >= 1);
  for (const file of ghosts) {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const ghost = sk.decodeGhost(bytes);
    assert.deepEqual(sk.encodeGhost(ghost), bytes, file);
  }
});

test('a replay can embed every car\'s ghost', () => {
  const world = new sk.World();
  world.setDriver(world.addPresetCar('fwd_hatchback'), 'brandwood');
  const recorder = new sk.ReplayRecorder(world, { embedGhosts: true });
  for (let k = 0; k < 60; k++) recorder.step(world, DT);
  const replay = sk.decodeReplay(sk.encodeReplay(recorder.finish(world)));
  const ghost = replay.embeddedGhost(0);
  assert.equal(ghost.frameCount, 61, 'the start pose plus one frame per step');
  assert.throws(() => replay.embeddedGhost(1), RangeError);
});

// Splits against a ghost lap: the golden flat lap raced against its own
// lap's ghost passes each sector boundary and the line level with it.
test('SplitTracker: a lap against its own ghost splits level at every sector and the line', () => {
  const dir = join(import.meta.dirname, `../../golden/v${sk.simulationVersion()}`);
  const replay = sk.decodeReplay(new Uint8Array(readFileSync(join(dir, 'flat_lap.skr'))));
  const ghost = sk.decodeGhost(new Uint8Array(readFileSync(join(dir, 'flat_lap.skg'))));
  const track = replay.track();
  const reference = new sk.LapReference(ghost, track);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const splits = new sk.SplitTracker(reference, 0);
  const passed = [];
  let time = 0;
  while (player.advance()) {
    time += DT;
    const [x, y] = player.poses();
    passed.push(...splits.update(reference, x, y, time));
  }
  assert.deepEqual(passed.map((s) => [s.checkpoint, s.line]), [[0, false], [1, false], [2, true]], JSON.stringify(passed));
  for (const s of passed) assert.ok(Math.abs(s.delta) < 0.02, `level with its own ghost: ${JSON.stringify(s)}`);
  assert.ok(passed[2].time > passed[1].time && passed[1].time > passed[0].time);
});
