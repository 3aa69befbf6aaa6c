// Streams in JS: a recording as a stream, read back from any cut, split
// into the pieces a spectator service offers, and followed by a late
// joiner to the recording's final hash.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, DT } from './helpers.mjs';

function recordReplay() {
  const world = new sk.World();
  ['fwd_hatchback', 'rwd_sports'].forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 40 - 12 * k, speed: 6 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < 290; step++) recorder.step(world, DT);
  return recorder.finish(world);
}

const replay = recordReplay();
const bytes = sk.encodeStream(replay);

test('a stream reads back as the replay and recovers from any cut', () => {
  const whole = sk.readStream(bytes);
  assert.equal(whole.complete, true);
  assert.equal(whole.chunks, 5);
  assert.equal(whole.replay.finalHash, replay.finalHash);
  assert.deepEqual(sk.encodeStream(whole.replay), bytes);
  let last = 0;
  for (let cut = 0; cut < bytes.length; cut += 97) {
    let read;
    try {
      read = sk.readStream(bytes.subarray(0, cut));
    } catch (e) {
      assert.equal(last, 0, `cut ${cut} after a whole chunk: ${e.message}`);
      continue;
    }
    assert.equal(read.complete, false);
    assert.ok(read.replay.stepCount >= last);
    assert.equal(read.replay.stepCount % 60 === 0 || read.replay.stepCount === 290, true);
    last = read.replay.stepCount;
    assert.equal(sk.verifyReplay(sk.encodeReplay(read.replay)).valid, true);
  }
  assert.ok(last >= 240);
  assert.throws(() => sk.readStream(new Uint8Array([1, 2, 3])), Error);
});

test('a spectator joining at any chunk reaches the final hash', () => {
  const pieces = sk.splitStream(bytes);
  assert.deepEqual(
    pieces.map((p) => p.kind),
    ['header', 'chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'end'],
  );
  const chunks = pieces.filter((p) => p.kind === 'chunk').map((p) => p.bytes);
  for (let join = 0; join < chunks.length; join++) {
    const follower = new sk.StreamFollower(pieces[0].bytes);
    assert.equal(follower.worldHash(), undefined);
    for (const chunk of chunks.slice(join)) follower.pushChunk(chunk);
    assert.equal(follower.step, 290);
    assert.equal(follower.worldHash(), replay.finalHash);
    assert.ok(Number.isFinite(follower.pose(1).x));
  }
  const follower = new sk.StreamFollower(pieces[0].bytes);
  follower.pushChunk(chunks[0]);
  assert.throws(() => follower.pushChunk(chunks[2]), /spectator is at/);
});
