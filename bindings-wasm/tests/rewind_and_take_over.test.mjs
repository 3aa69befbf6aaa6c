// Rewind and take-over in JS: a recorded world goes back to an earlier
// step bit for bit and the file says what the rewinds took back; a new
// run from a step of a golden replay, the player in one car and the others
// on their recordings (or the AI), verifies on its own and names where it
// began.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, goldenHashes } from './helpers.mjs';

const { dir } = goldenHashes(sk.simulationVersion());
const source = sk.decodeReplay(readFileSync(join(dir, 'long_run.skr')));

function drive(run, steps) {
  const world = run.takeWorld();
  const recorder = run.recorder(world, { metadata: { player: 'node' } });
  for (let k = 0; k < steps; k++) {
    run.prepareFollowers(world);
    world.setInput(run.player, { steer: 0.05, throttle: 0.4, brake: 0 });
    recorder.step(world, DT);
  }
  return { world, replay: recorder.finish(world) };
}

test('a run taken over from a golden replay verifies alone and names its origin', () => {
  const run = new sk.TakeOver(source, 900, 1);
  assert.deepEqual(run.origin(), { source: source.finalHash, step: 900, car: 1 });
  const { world, replay } = drive(run, 240);
  const report = sk.verifyReplay(sk.encodeReplay(replay));
  assert.equal(report.valid, true);
  assert.equal(report.steps, 240);
  assert.equal(report.finalHash, world.worldHash());
  const said = JSON.parse(replay.metadata()['skidpad.take_over']);
  assert.deepEqual(said, { source: source.finalHash, step: 900, car: 1 });
  assert.equal(replay.metadata().player, 'node');
  assert.throws(() => run.takeWorld(), /taken already/);
});

test('followers can be the AI; bad arguments throw', () => {
  const { replay } = drive(new sk.TakeOver(source, 3000, 0, { followers: 'ai' }), 120);
  assert.equal(sk.verifyReplay(sk.encodeReplay(replay)).valid, true);
  assert.throws(() => new sk.TakeOver(source, 10, 0, { followers: 'ghosts' }), RangeError);
  assert.throws(() => new sk.TakeOver(source, source.stepCount + 1, 0), /past the replay/);
  assert.throws(() => new sk.TakeOver(source, 10, 7), /not in the replay/);
});

test('a recorded world rewinds bit for bit and the replay notes it', () => {
  const world = new sk.World();
  const car = world.addPresetCar('kart', { x: 0, y: 0, speed: 5 });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  const hashes = [world.worldHash()];
  for (let step = 0; step < 300; step++) {
    world.setInput(car, { steer: Math.sin(step / 30) / 3, throttle: 0.6, brake: 0 });
    recorder.step(world, DT);
    hashes.push(world.worldHash());
  }
  recorder.rewind(world, 250);
  assert.equal(world.worldHash(), hashes[250]);
  recorder.rewind(world, 130);
  assert.equal(world.worldHash(), hashes[130]);
  assert.throws(() => recorder.rewind(world, 131), /not before/);
  for (let step = 0; step < 60; step++) recorder.step(world, DT);
  const replay = recorder.finish(world);
  assert.deepEqual(replay.rewinds(), [{ at: 130, count: 2, steps: 170, seconds: replay.rewinds()[0].seconds }]);
  assert.ok(Math.abs(replay.rewinds()[0].seconds - 170 * DT) < 1e-9);
  const report = sk.verifyReplay(sk.encodeReplay(replay));
  assert.equal(report.valid, true);
  assert.equal(report.finalHash, world.worldHash());
  assert.deepEqual({ count: report.rewinds.count, steps: report.rewinds.steps }, { count: 2, steps: 170 });
});
