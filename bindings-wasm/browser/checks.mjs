// What the browser test measures on every engine, given the package `sk`:
// the page runs it with the web build, run.mjs with the node build, and
// run.mjs compares the two. Nothing here judges; it only measures.

import { parseHashes } from '../tests/hashes.mjs';

export const DT = 1 / 60;
export const RACE_STEPS = 600;

// Three AI cars on Brandwood, one switched to the single-track model
// mid-race, recorded with keyframes every 120 steps; car 0's ghost is
// sampled at every step. Returns the replay, the world hash before the
// first step and after each step, and the ghost.
export function recordRace(sk, recordedIn) {
  const world = new sk.World();
  ['fwd_hatchback', 'rwd_sports', 'fwd_hatchback'].forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 50 - 11 * k, y: k % 2 ? -2.5 : 2.5, speed: 4 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 120, metadata: { recordedIn } });
  const ghostRecorder = new sk.GhostRecorder(0);
  const hashes = [world.worldHash()];
  for (let step = 0; step < RACE_STEPS; step++) {
    if (step === 200) recorder.setLod(world, 2, 'singleTrack');
    recorder.step(world, DT);
    ghostRecorder.afterStep(world);
    hashes.push(world.worldHash());
  }
  return { replay: recorder.finish(world), hashes, ghost: ghostRecorder.finish() };
}

// Plays encoded replay bytes back step by step against the hashes taken
// while recording, then seeks backwards once.
export function playBack(sk, bytes, hashes) {
  const replay = sk.decodeReplay(bytes);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  let mismatches = 0;
  while (player.advance()) {
    if (player.worldHash() !== hashes[player.step]) mismatches += 1;
  }
  const steps = player.step;
  player.seek(123);
  const seekOk = player.worldHash() === hashes[123];
  return { steps, mismatches, desyncs: player.desyncs, seekOk };
}

// A ghost through .skg bytes and back: the decoded frames equal the
// recorded ones and encoding them again gives the same bytes.
export function ghostRoundTrip(sk, ghost) {
  const bytes = sk.encodeGhost(ghost);
  const back = sk.decodeGhost(bytes);
  const frames = ghost.frames();
  const backFrames = back.frames();
  const sameFrames = frames.length === backFrames.length && frames.every((v, k) => Object.is(v, backFrames[k]));
  return { bytes, sameFrames, sameBytes: sameBytes(sk.encodeGhost(back), bytes) };
}

export function sameBytes(a, b) {
  return a.length === b.length && a.every((v, k) => v === b[k]);
}

// One golden replay played one step at a time, its world hash compared at
// every pinned keyframe step and at the end. `hooks` is the game's (the
// game_logic scenario needs its HillGame).
export function playGolden(sk, bytes, pinned, hooks) {
  const replay = sk.decodeReplay(bytes);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay, hooks);
  const mismatches = [];
  let keyframes = 0;
  const compare = (key) => {
    if (pinned[key] === undefined) return;
    keyframes += 1;
    const hash = player.worldHash();
    if (hash !== pinned[key]) mismatches.push({ step: key, hash, pinned: pinned[key] });
  };
  compare('0');
  while (player.advance()) compare(String(player.step));
  const finalHash = player.worldHash();
  if (finalHash !== pinned.final) mismatches.push({ step: 'final', hash: finalHash, pinned: pinned.final });
  return { steps: player.step, keyframes, mismatches, desyncs: player.desyncs, finalHash };
}

// Bytes as base64, in chunks (spreading a large array into one call
// overflows some engines' argument limits).
export function toBase64(bytes) {
  let text = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(text);
}

// Everything the page measures. `load(path)` fetches a file of the golden
// corpus as bytes; `HillGame` is the game_logic scenario's game.
export async function measureAll(sk, { engine, load, HillGame }) {
  const started = performance.now();
  const result = { engine, simulationVersion: sk.simulationVersion(), userAgent: globalThis.navigator?.userAgent };
  result.referenceHash = sk.referenceScenarioHash();

  const race = recordRace(sk, engine);
  const bytes = sk.encodeReplay(race.replay, { gzip: true });
  result.race = { hashes: race.hashes, ...playBack(sk, bytes, race.hashes) };
  result.raceVerify = sk.verifyReplay(bytes);
  const ghost = ghostRoundTrip(sk, race.ghost);
  result.raceGhost = { sameFrames: ghost.sameFrames, sameBytes: ghost.sameBytes, base64: toBase64(ghost.bytes) };
  // Sent back so the native verifier can check a browser recording.
  result.raceBase64 = toBase64(bytes);

  const version = `v${result.simulationVersion}`;
  const table = parseHashes(new TextDecoder().decode(await load(`${version}/HASHES`)));
  result.golden = {};
  for (const [file, pinned] of Object.entries(table)) {
    const fileBytes = await load(`${version}/${file}`);
    if (file.endsWith('.skr')) {
      const hooks = file === 'game_logic.skr' ? new HillGame().hooks() : undefined;
      result.golden[file] = playGolden(sk, fileBytes, pinned, hooks);
    } else if (file.endsWith('.skg')) {
      result.golden[file] = { ghostRoundTrip: sameBytes(sk.encodeGhost(sk.decodeGhost(fileBytes)), fileBytes) };
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}
