// Bad input from JS: every case throws Error or RangeError with the Rust
// message, changes nothing, and never traps the module.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, DT, nativeGolden } from './helpers.mjs';

// Asserts that `f` throws `kind` (never a wasm trap) and returns the message.
function throwsA(kind, f, pattern) {
  try {
    f();
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `trapped: ${e}`);
    assert.ok(e instanceof kind, `${e?.constructor?.name}: ${e?.message} is not a ${kind.name}`);
    if (pattern) assert.match(e.message, pattern);
    return e.message;
  }
  assert.fail('did not throw');
}

function smallWorld() {
  const world = new sk.World();
  world.addPresetCar('fwd_hatchback');
  world.addPresetCar('rwd_sports', { x: -10 });
  world.stepMany(10, DT);
  return world;
}

test('NaN, infinities and out-of-range numbers throw RangeError and change nothing', () => {
  const world = smallWorld();
  const before = world.worldHash();
  throwsA(RangeError, () => world.step(NaN), /dt is NaN/);
  throwsA(RangeError, () => world.step(Infinity), /timestep/);
  throwsA(RangeError, () => world.step(0), /timestep/);
  throwsA(RangeError, () => world.step(-DT), /timestep/);
  throwsA(RangeError, () => world.step(1), /timestep/);
  throwsA(RangeError, () => world.stepMany(-1, DT), /count/);
  throwsA(RangeError, () => world.stepMany(2, NaN), /dt/);
  for (const field of ['steer', 'throttle', 'brake', 'handbrake', 'clutch', 'gear']) {
    throwsA(RangeError, () => world.setInput(0, { [field]: NaN }), new RegExp(field));
    throwsA(RangeError, () => world.setInput(0, { [field]: -Infinity }), new RegExp(field));
  }
  throwsA(RangeError, () => world.setGroundSlope(0, NaN, 0));
  throwsA(RangeError, () => world.setGroundSlope(0, 5, 0));
  throwsA(RangeError, () => world.setLod(0, 'full', NaN));
  throwsA(RangeError, () => world.setLod(0, 'full', 1e9));
  throwsA(RangeError, () => world.addPresetCar('rwd_sports', { x: NaN }));
  throwsA(RangeError, () => new sk.World({ gravity: NaN }));
  assert.equal(world.worldHash(), before, 'nothing changed');
  assert.equal(world.carIds().length, 2);
});

test('wrong types and unknown ids throw RangeError naming the argument', () => {
  const world = smallWorld();
  const before = world.worldHash();
  throwsA(RangeError, () => world.step('0.016'), /dt must be a number, got string/);
  throwsA(RangeError, () => world.step(null), /dt must be a number/);
  throwsA(RangeError, () => world.step(), /dt must be a number/);
  throwsA(RangeError, () => world.setInput(null, {}), /car id/);
  throwsA(RangeError, () => world.setInput(-1, {}), /car id/);
  throwsA(RangeError, () => world.setInput(0.5, {}), /car id/);
  throwsA(RangeError, () => world.setInput(7, {}), /unknown car id 7/);
  throwsA(RangeError, () => world.setInput(0, 'full throttle'), /input must be an object/);
  throwsA(RangeError, () => world.setInput(0, { throttle: '1' }), /input.throttle must be a number/);
  throwsA(RangeError, () => world.setSurface(0, 'lava'), /unknown surface `lava`/);
  throwsA(RangeError, () => world.setSurface(0, 99), /surface/);
  throwsA(RangeError, () => world.setWheelSurface(0, 'middle', 'grass'), /wheel/);
  throwsA(RangeError, () => world.setWheelSurface(0, 4, 'grass'), /wheel/);
  throwsA(RangeError, () => world.setLod(0, 'ultra'), /level of detail/);
  throwsA(RangeError, () => world.setDriver(0, 'monza'), /monza/);
  throwsA(RangeError, () => world.addPresetCar('tank'), /tank/);
  throwsA(RangeError, () => world.addPresetCar(42), /preset name must be a string/);
  throwsA(Error, () => world.addCar('{"chassis": 1}'), /definition/);
  throwsA(Error, () => world.addCar('not json'), /parse|definition/);
  throwsA(RangeError, () => world.restore(0, [1, 2, 3]), /Uint8Array/);
  throwsA(RangeError, () => world.channel(0, 'warp_factor'), /warp_factor/);
  throwsA(RangeError, () => new sk.ReplayRecorder(world, { keyframeEvery: 0 }), /keyframe/);
  throwsA(RangeError, () => new sk.ReplayRecorder(world, { cars: [0, 0] }), /twice/);
  throwsA(RangeError, () => new sk.ReplayRecorder(world, { keyframeState: 3 }), /function/);
  throwsA(RangeError, () => new sk.ReplayRecorder(world, 'options'), /options must be an object/);
  throwsA(RangeError, () => new sk.GhostRecorder(0, { every: 0 }), /every/);
  throwsA(RangeError, () => sk.Ghost.fromFrames(new Float32Array(10)), /nine values/);
  throwsA(RangeError, () => sk.Ghost.fromFrames(new Float32Array(0)), /at least one frame/);
  throwsA(RangeError, () => sk.decodeReplay('bytes'), /Uint8Array, got string/);
  throwsA(RangeError, () => sk.decodeGhost({}), /Uint8Array, got object/);
  assert.equal(world.worldHash(), before, 'nothing changed');
});

test('corrupt, truncated and foreign bytes throw Error with the section and offset', () => {
  const world = smallWorld();
  const recorder = new sk.ReplayRecorder(world);
  for (let k = 0; k < 120; k++) recorder.step(world, DT);
  const bytes = sk.encodeReplay(recorder.finish(world));
  // Every truncation.
  for (let n = 0; n < bytes.length; n++) {
    throwsA(Error, () => sk.decodeReplay(bytes.subarray(0, n)), /cannot decode replay|gzip|truncated|bytes/);
  }
  // Single-byte corruption at a spread of offsets.
  for (let at = 0; at < bytes.length; at += 7) {
    const bad = bytes.slice();
    bad[at] ^= 0x5a;
    throwsA(Error, () => sk.decodeReplay(bad));
  }
  // Trailing garbage, a ghost's bytes and random bytes.
  throwsA(Error, () => sk.decodeReplay(new Uint8Array([...bytes, 0])));
  const ghost = sk.encodeGhost(sk.Ghost.fromFrames(new Float32Array(9)));
  throwsA(Error, () => sk.decodeReplay(ghost));
  throwsA(Error, () => sk.decodeGhost(bytes), /cannot decode ghost/);
  for (let n = 0; n < ghost.length; n++) throwsA(Error, () => sk.decodeGhost(ghost.subarray(0, n)));
  throwsA(Error, () => sk.verifyReplay(bytes.subarray(0, 40)));
  // A snapshot cut short is refused and the car keeps its state.
  const before = world.carHash(0);
  const snapshot = world.snapshot(0);
  throwsA(Error, () => world.restore(0, snapshot.subarray(0, snapshot.length - 1)), /snapshot/);
  assert.equal(world.carHash(0), before);
});

test('work budgets refuse a replay before simulating, and bad limits throw RangeError', () => {
  const world = smallWorld();
  const recorder = new sk.ReplayRecorder(world);
  for (let k = 0; k < 120; k++) recorder.step(world, DT);
  const bytes = sk.encodeReplay(recorder.finish(world));
  // Within the defaults (and with an empty limits object) it verifies.
  assert.equal(sk.verifyReplay(bytes).desyncs, 0);
  assert.equal(sk.verifyReplay(bytes, undefined, {}).desyncs, 0);
  throwsA(Error, () => sk.verifyReplay(bytes, undefined, { maxSteps: 119 }),
    /exceeds the steps limit: 120 > 119/);
  throwsA(Error, () => sk.decodeReplay(bytes, { maxCars: 1 }), /cars limit: 2 > 1/);
  throwsA(Error, () => sk.decodeReplay(bytes, { maxCarSubsteps: 1000 }), /car-substeps limit/);
  throwsA(Error, () => sk.decodeReplay(bytes, { maxDecodedBytes: 1024 }), /decoded bytes limit/);
  assert.equal(sk.decodeReplay(bytes, { maxSteps: 120 }).stepCount, 120);
  for (const bad of [{ maxSteps: -1 }, { maxCars: 1.5 }, { maxCars: 'many' }, { maxSteps: NaN }, 7]) {
    throwsA(RangeError, () => sk.decodeReplay(bytes, bad));
  }
  // gzip with junk after its member is refused like a plain file's tail.
  const gz = sk.encodeReplay(sk.decodeReplay(bytes), { gzip: true });
  throwsA(Error, () => sk.decodeReplay(new Uint8Array([...gz, 1, 2, 3])), /trailing data/);
});

test('freed and consumed objects throw instead of trapping', () => {
  const world = smallWorld();
  world.free();
  throwsA(Error, () => world.step(DT));
  throwsA(Error, () => world.worldHash());

  const other = smallWorld();
  const recorder = new sk.ReplayRecorder(other);
  recorder.step(other, DT);
  const replay = recorder.finish(other);
  throwsA(Error, () => recorder.step(other, DT), /finished/);
  throwsA(Error, () => recorder.finish(other), /finished/);

  // A world moved into a player stops working; the player carries on.
  const playbackWorld = sk.createReplayWorld(replay);
  const player = new sk.ReplayPlayer(playbackWorld, replay);
  throwsA(Error, () => playbackWorld.step(DT), /moved into a ReplayPlayer/);
  throwsA(Error, () => new sk.ReplayPlayer(playbackWorld, replay), /moved into a ReplayPlayer/);
  player.playToEnd();
  assert.equal(player.desyncs, 0);

  // A mismatched world is refused before it is taken.
  const wrong = new sk.World();
  throwsA(Error, () => new sk.ReplayPlayer(wrong, replay), /holds 0 cars/);
  wrong.step(DT);

  replay.free();
  throwsA(Error, () => sk.encodeReplay(replay));
  throwsA(Error, () => new sk.ReplayPlayer(smallWorld(), replay));
  throwsA(Error, () => new sk.ReplayPlayer(smallWorld(), 'replay'));
});

test('exceptions thrown by hooks come back out of the call that ran them', () => {
  const world = smallWorld();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 10 });
  for (let k = 0; k < 40; k++) recorder.step(world, DT);
  const replay = recorder.finish(world);

  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay, {
    beforeStep: (step) => {
      if (step === 5) throw new Error('game over at 5');
    },
  });
  for (let k = 0; k < 5; k++) player.advance();
  throwsA(Error, () => player.advance(), /game over at 5/);
  assert.equal(player.step, 6, 'the step itself was played');
  player.playToEnd();
  assert.equal(player.desyncs, 0);

  // A playback world kept after beforeStep returns refuses to work.
  let kept = null;
  const keeper = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay, {
    beforeStep: (_, w) => {
      kept = w;
    },
  });
  keeper.advance();
  throwsA(Error, () => kept.worldHash(), /beforeStep callback returned/);
  throwsA(Error, () => new sk.ReplayPlayer(kept, replay));

  // keyframeState throwing abandons the recording with a clear message.
  const w2 = smallWorld();
  const failing = new sk.ReplayRecorder(w2, {
    keyframeEvery: 3,
    keyframeState: (step) => {
      if (step === 6) throw new Error('no state');
      return new Uint8Array([1]);
    },
  });
  failing.step(w2, DT);
  failing.step(w2, DT);
  failing.step(w2, DT);
  failing.step(w2, DT);
  failing.step(w2, DT);
  throwsA(Error, () => failing.step(w2, DT), /keyframeState threw at step 6.*no state/);
  throwsA(Error, () => failing.step(w2, DT), /finished or failed/);
  throwsA(Error, () => new sk.ReplayRecorder(w2, { keyframeState: () => 'state' }), /must return a Uint8Array/);
  throwsA(RangeError, () => new sk.ReplayPlayer(smallWorld(), replay, { beforeStep: 1 }), /function/);
});

test('after all of that the module still computes the GOLDEN hash', () => {
  assert.equal(sk.referenceScenarioHash(), nativeGolden());
});
