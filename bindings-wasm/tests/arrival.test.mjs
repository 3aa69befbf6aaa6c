// Cars that join a running recording from JS: the recorder adopts a car
// the game added, the replay plays it from its arrival (NaN poses before),
// its stream announces it, and a spectator follows it from any chunk.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, DT } from './helpers.mjs';

const JOIN = 100;
const STEPS = 200;

function record() {
  const world = new sk.World();
  ['fwd_hatchback', 'rwd_sports'].forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 40 - 12 * k, speed: 6 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < JOIN; step++) recorder.step(world, DT);
  const late = world.addPresetCar('fwd_hatchback', { x: -20, speed: 6 });
  world.setDriver(late, 'brandwood');
  // Only the oldest car the recording lacks can be adopted.
  assert.throws(() => recorder.adoptCar(world, 0), /not the oldest/);
  recorder.adoptCar(world, late);
  for (let step = JOIN; step < STEPS; step++) recorder.step(world, DT);
  const replay = recorder.finish(world);
  return { replay, finalHash: world.worldHash() };
}

const { replay, finalHash } = record();
const fields = sk.poseFields().length;

test('an adopted car plays from its arrival, with NaN poses before it', () => {
  assert.equal(replay.carCount, 3);
  assert.equal(sk.verifyReplay(sk.encodeReplay(replay)).valid, true);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  while (player.advance()) {
    const late = player.poses().slice(2 * fields, 3 * fields);
    assert.equal(late.every(Number.isNaN), player.step < JOIN, `step ${player.step}`);
  }
  assert.equal(player.worldHash(), finalHash);
  player.seek(JOIN - 1);
  assert.ok(player.poses().slice(2 * fields).every(Number.isNaN));
});

test('the stream announces the car and a spectator follows it from any chunk', () => {
  const bytes = sk.encodeStream(replay);
  assert.equal(sk.readStream(bytes).replay.finalHash, replay.finalHash);
  const pieces = sk.splitStream(bytes);
  // The car joined inside the second chunk (steps 60 to 120).
  assert.deepEqual(
    pieces.map((p) => p.kind),
    ['header', 'chunk', 'arrival', 'chunk', 'chunk', 'chunk', 'end'],
  );
  const arrival = pieces[2].bytes;
  const chunks = pieces.filter((p) => p.kind === 'chunk').map((p) => p.bytes);
  for (let join = 0; join < chunks.length; join++) {
    const follower = new sk.StreamFollower(pieces[0].bytes);
    // A late joiner takes the arrivals before its chunk first; one from
    // the start takes the arrival with the chunk it precedes.
    if (join >= 2) follower.pushArrivals(arrival);
    let step = 60 * join;
    for (let n = join; n < chunks.length; n++) {
      const piece = n === 1 ? concat(arrival, chunks[n]) : chunks[n];
      const rows = follower.pushChunkPoses(piece);
      const width = 1 + follower.carCount * fields;
      assert.equal(rows.length % width, 0);
      for (let row = 0; row < rows.length; row += width) {
        step += 1;
        const late = rows.slice(row + 1 + 2 * fields, row + width);
        assert.equal(late.every(Number.isNaN), follower.carCount < 3 || step < JOIN, `step ${step}`);
      }
    }
    assert.equal(follower.carCount, 3);
    assert.equal(follower.worldHash(), finalHash);
  }
  // Arrivals out of order are refused, and none is taken.
  const twice = new sk.StreamFollower(pieces[0].bytes);
  assert.throws(() => twice.pushArrivals(concat(arrival, arrival)), /stream's order/);
  assert.equal(twice.carCount, 2);
});

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
