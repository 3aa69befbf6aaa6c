// Replays in JS: record, encode, decode, play, seek, hooks, and the
// cross-target round trips with native recordings.

import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, HillGame, goldenHashes, repoRoot } from './helpers.mjs';

const STEPS = 900;

// Three AI cars (both presets) with a level-of-detail change and surface
// changes, recorded step by step; returns the replay and the world hash
// after every step.
function recordRace() {
  const world = new sk.World();
  const presets = ['fwd_hatchback', 'rwd_sports', 'fwd_hatchback'];
  presets.forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 50 - 11 * k, y: k % 2 ? -2.5 : 2.5, speed: 4 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, {
    keyframeEvery: 120,
    metadata: { track: 'brandwood', recordedIn: 'node' },
  });
  const hashes = [world.worldHash()];
  for (let step = 0; step < STEPS; step++) {
    if (step === 200) recorder.setLod(world, 2, 'singleTrack');
    if (step === 500) recorder.setLod(world, 2, 'full', 500);
    if (step === 300) world.setWheelSurface(1, 'rr', 'gravel');
    if (step === 360) world.setSurface(1, 'dry_asphalt');
    recorder.step(world, DT);
    hashes.push(world.worldHash());
  }
  assert.equal(recorder.stepCount, STEPS);
  const replay = recorder.finish(world);
  return { replay, hashes };
}

const race = recordRace();

test('reserveSteps only reserves memory: the bytes are the same, an impossible reserve throws', () => {
  const record = (options) => {
    const world = new sk.World();
    world.addPresetCar('rwd_sports', { speed: 10 });
    const recorder = new sk.ReplayRecorder(world, options);
    for (let k = 0; k < 90; k++) recorder.step(world, DT);
    return sk.encodeReplay(recorder.finish(world));
  };
  const plain = record({});
  assert.deepEqual(record({ reserveSteps: 10 }), plain);
  assert.deepEqual(record({ reserveSteps: 5000 }), plain);
  const world = new sk.World();
  world.addPresetCar('rwd_sports');
  assert.throws(() => new sk.ReplayRecorder(world, { reserveSteps: 2 ** 40 }), /reserve_steps/);
  assert.throws(() => new sk.ReplayRecorder(world, { reserveSteps: -1 }), RangeError);
});

test('a 3-car race recorded in JS plays back from its bytes with zero desyncs', () => {
  const { replay, hashes } = race;
  assert.equal(replay.carCount, 3);
  assert.equal(replay.stepCount, STEPS);
  assert.equal(replay.finalHash, hashes[STEPS]);
  assert.deepEqual(replay.metadata(), { track: 'brandwood', recordedIn: 'node' });
  for (const gzip of [false, true]) {
    const bytes = sk.encodeReplay(replay, { gzip });
    assert.equal(bytes[0] === 0x1f && bytes[1] === 0x8b, gzip, 'gzip magic only when asked');
    const decoded = sk.decodeReplay(bytes);
    assert.deepEqual(sk.encodeReplay(decoded), sk.encodeReplay(replay), 'canonical');
    const player = new sk.ReplayPlayer(sk.createReplayWorld(decoded), decoded);
    assert.equal(player.worldHash(), hashes[0]);
    let step = 0;
    while (player.advance()) {
      step += 1;
      assert.equal(player.worldHash(), hashes[step], `step ${step}`);
    }
    assert.equal(step, STEPS);
    assert.ok(player.atEnd);
    assert.equal(player.desyncs, 0);
    assert.equal(player.firstDesync, null);
  }
});

test('seek lands on the recorded state forwards and backwards', () => {
  const { replay, hashes } = race;
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  for (const target of [700, 130, 131, 899, 0, 900, 455, 240, 241, 239]) {
    player.seek(target);
    assert.equal(player.step, target);
    assert.equal(player.worldHash(), hashes[target], `seek to ${target}`);
  }
  assert.throws(() => player.seek(901), RangeError);
  assert.throws(() => player.seek(-1), RangeError);
  assert.throws(() => player.seek(2.5), RangeError);
  assert.equal(player.desyncs, 0);
});

test('verifyReplay reports steps, duration, version and the final hash', () => {
  const bytes = sk.encodeReplay(race.replay);
  const report = sk.verifyReplay(bytes);
  assert.equal(report.valid, true);
  assert.equal(report.steps, STEPS);
  assert.equal(report.desyncs, 0);
  assert.equal(report.finalHash, race.hashes[STEPS]);
  assert.equal(report.simulationVersion, sk.simulationVersion());
  assert.ok(Math.abs(report.duration - STEPS * DT) < 1e-9);
});

test('hooks run with the right step numbers and game state', () => {
  // Record the golden game_logic scenario's game in JS, with its state in
  // every keyframe.
  const world = new sk.World();
  for (let k = 0; k < 2; k++) {
    const id = world.addPresetCar(k ? 'rwd_sports' : 'fwd_hatchback', { x: 40 - 12 * k, speed: 8 });
    world.setDriver(id, 'brandwood');
  }
  const game = new HillGame();
  const keyframeSteps = [];
  const recorder = new sk.ReplayRecorder(world, {
    keyframeEvery: 100,
    keyframeState: (step) => {
      keyframeSteps.push(step);
      return game.save();
    },
  });
  for (let step = 0; step < 1000; step++) {
    game.beforeStep(step, world);
    recorder.step(world, DT);
  }
  const replay = recorder.finish(world);
  assert.deepEqual(keyframeSteps, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  assert.ok(game.checkpoints.length > 0, 'car 0 crossed x = 100');

  const playback = new HillGame();
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay, playback.hooks());
  assert.deepEqual(playback.restores, [0], 'keyframe 0 restored at construction');
  player.playToEnd();
  assert.deepEqual(playback.beforeStepCalls, [...Array(1000).keys()], 'beforeStep(0) … beforeStep(999)');
  assert.deepEqual(playback.checkpoints, game.checkpoints);
  assert.equal(player.desyncs, 0, 'slopes re-applied in beforeStep keep playback in sync');

  // A backward seek restores a keyframe (or a cached point) at or before
  // the target, then calls beforeStep for each step played from there.
  playback.restores.length = 0;
  playback.beforeStepCalls.length = 0;
  player.seek(450);
  assert.equal(playback.restores.length, 1);
  const from = playback.restores[0];
  assert.ok(from <= 450 && from >= 400, `restored at ${from}`);
  assert.deepEqual(playback.beforeStepCalls, Array.from({ length: 450 - from }, (_, k) => from + k));
  assert.deepEqual(playback.checkpoints, game.checkpoints.filter((s) => s < 450));

  // Without hooks the slopes are missing and playback desyncs, every
  // keyframe after the hill, with a field report.
  const bare = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  bare.playToEnd();
  assert.ok(bare.desyncs > 0);
  assert.ok(bare.firstDesync.fields.length > 0);
  assert.equal(typeof bare.firstDesync.fields[0].field, 'string');
});

test('native golden replays verify in wasm with their pinned hashes', () => {
  const { dir, table } = goldenHashes();
  for (const [file, hashes] of Object.entries(table)) {
    if (!file.endsWith('.skr')) continue;
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const game = new HillGame();
    const hooks = file === 'game_logic.skr' ? game.hooks() : undefined;
    const report = sk.verifyReplay(bytes, hooks);
    assert.equal(report.desyncs, 0, file);
    assert.equal(report.finalHash, hashes.final, file);
    // Every pinned keyframe hash, through a player.
    const replay = sk.decodeReplay(bytes);
    const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay, file === 'game_logic.skr' ? new HillGame().hooks() : undefined);
    for (const [key, hash] of Object.entries(hashes)) {
      if (key === 'final') continue;
      player.seek(Number(key));
      assert.equal(player.worldHash(), hash, `${file} at ${key}`);
    }
  }
});

test('a replay recorded in wasm is written for native verification', () => {
  // `cargo xtask test` then runs the native `skidpad verify` on this file.
  const out = join(repoRoot, 'target', 'wasm-cross');
  mkdirSync(out, { recursive: true });
  const bytes = sk.encodeReplay(race.replay, { gzip: true });
  writeFileSync(join(out, 'recorded-in-wasm.skr'), bytes);
  writeFileSync(join(out, 'recorded-in-wasm.hash'), `${race.hashes[STEPS]}\n`);
  assert.equal(sk.verifyReplay(bytes).finalHash, race.hashes[STEPS]);
});

test('fileKind tells the golden files apart as the CLI does', () => {
  const dir = join(repoRoot, `golden/v${sk.simulationVersion()}`);
  const replay = new Uint8Array(readFileSync(join(dir, 'flat_lap.skr')));
  assert.equal(sk.fileKind(replay), 'replay');
  assert.equal(sk.fileKind(sk.encodeReplay(sk.decodeReplay(replay), { gzip: true })), 'replay');
  assert.equal(sk.fileKind(sk.encodeStream(sk.decodeReplay(replay))), 'stream');
  assert.equal(sk.fileKind(new Uint8Array(readFileSync(join(dir, 'flat_lap.skg')))), 'ghost');
  assert.equal(sk.fileKind(new Uint8Array()), 'empty');
  assert.equal(sk.fileKind(new TextEncoder().encode('{"steps": []}')), 'unknown');
  assert.throws(() => sk.fileKind('SKRP'), RangeError);
});

test('clipReplay: a stretch of a golden replay verifies alone and ends on the whole replay\'s world', () => {
  const bytes = readFileSync(join(repoRoot, `golden/v${sk.simulationVersion()}`, 'mixed_field.skr'));
  const whole = sk.decodeReplay(new Uint8Array(bytes));
  const clip = sk.clipReplay(whole, 120, 480);
  assert.equal(clip.stepCount, 360);
  assert.deepEqual(clip.metadata().track, whole.metadata().track);
  const report = sk.verifyReplay(sk.encodeReplay(clip));
  assert.equal(report.desyncs, 0);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(whole), whole);
  while (player.step < 480) player.advance();
  assert.equal(report.finalHash, player.worldHash());
  assert.throws(() => sk.clipReplay(whole, 480, 120), RangeError);
  assert.throws(() => sk.clipReplay(whole, 0, whole.stepCount + 1), RangeError);
  assert.throws(() => sk.clipReplay(whole, -1, 10), RangeError);
});

test('afterStep records the timestep the world ran; a different one handed to capture throws', () => {
  const world = new sk.World();
  world.addPresetCar('rwd_sports', { speed: 5 });
  assert.equal(world.lastTimestep, undefined);
  const recorder = new sk.ReplayRecorder(world);
  const ghost = new sk.GhostRecorder(0);
  for (const dt of [DT, 1 / 64]) {
    world.step(dt);
    assert.equal(world.lastTimestep, dt);
    recorder.afterStep(world);
    ghost.afterStep(world);
  }
  world.step(DT);
  assert.throws(() => recorder.capture(world, 1 / 30), /a step of 0\.0333\d* s was to be recorded, but the world's last step ran 0\.01666\d* s/);
  assert.throws(() => ghost.sample(world, 1 / 30), /not the step the world ran/);
  recorder.capture(world, DT);
  const replay = recorder.finish(world);
  assert.equal(replay.stepCount, 3);
  assert.deepEqual(Array.from(replay.stepTimes()).slice(1).map((t, k, a) => t - (k ? a[k - 1] : 0)).map((d) => Math.round(d * 1e9)), [DT, 1 / 64, DT].map((d) => Math.round(d * 1e9)));
});
