// Runs inside Chromium: the GOLDEN scenario, a replay recorded and played
// back in the browser, and a native golden replay verified here. The page
// only measures; run.mjs compares with the native values.

import init, * as sk from '/pkg/web/skidpad_wasm.js';

const DT = 1 / 60;

function recordRace(steps) {
  const world = new sk.World();
  ['fwd_hatchback', 'rwd_sports', 'fwd_hatchback'].forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 50 - 11 * k, y: k % 2 ? -2.5 : 2.5, speed: 4 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 120, metadata: { recordedIn: 'chromium' } });
  const hashes = [world.worldHash()];
  for (let step = 0; step < steps; step++) {
    if (step === 200) recorder.setLod(world, 2, 'singleTrack');
    recorder.step(world, DT);
    hashes.push(world.worldHash());
  }
  return { replay: recorder.finish(world), hashes };
}

function playBack(bytes, hashes) {
  const replay = sk.decodeReplay(bytes);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  let mismatches = 0;
  let step = 0;
  while (player.advance()) {
    step += 1;
    if (player.worldHash() !== hashes[step]) mismatches += 1;
  }
  player.seek(123);
  const seekOk = player.worldHash() === hashes[123];
  return { steps: step, mismatches, desyncs: player.desyncs, seekOk };
}

async function run() {
  await init();
  const result = { simulationVersion: sk.simulationVersion(), userAgent: navigator.userAgent };
  result.referenceHash = sk.referenceScenarioHash();

  const { replay, hashes } = recordRace(600);
  const bytes = sk.encodeReplay(replay, { gzip: true });
  result.recorded = { finalHash: hashes[600], ...playBack(bytes, hashes) };
  result.recordedVerify = sk.verifyReplay(bytes);
  // Sent back so the native verifier can check a browser recording.
  result.recordedBase64 = btoa(String.fromCharCode(...bytes));

  const golden = new Uint8Array(await (await fetch(`/golden/v${sk.simulationVersion()}/flat_lap.skr`)).arrayBuffer());
  result.goldenFlatLap = sk.verifyReplay(golden);
  return result;
}

window.skidpadResult = run().catch((e) => ({ error: `${e?.constructor?.name}: ${e?.message ?? e}` }));
