// A game's glTF circuit in the viewer: the stadium pygltflib writes
// (track-import/tests/gltf/write_scene.py, run by `cargo xtask test` into
// the folder SKIDPAD_TEST_SCENES names) raced with the npm package under
// node, the replay carrying its track but not its ground; served with the
// scene beside it (`skidpad view REPLAY stadium.glb`), the page imports
// the scene, re-simulates the race on its ground bit for bit and draws
// the scene's own meshes, the grandstand among them. And a race on a real
// circuit recorded naming its track by fingerprint only
// (`carryTrack: false`): served with the circuit's CSV (`skidpad view
// REPLAY --track BrandsHatch.csv`), the page times and draws it on that
// circuit and plays it on the circuit's generated ground bit for bit.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';
import { bin, ok, root, view, withViewer, work } from './harness.mjs';

export async function checkSceneTrack(browser) {
  const scenes = process.env.SKIDPAD_TEST_SCENES;
  if (!scenes) {
    assert.ok(!process.env.SKIDPAD_REQUIRE_SCENES, 'SKIDPAD_REQUIRE_SCENES is set but SKIDPAD_TEST_SCENES is not');
    console.log('SKIPPED the glTF scene: SKIDPAD_TEST_SCENES is not set');
    return;
  }
  const glb = join(scenes, 'stadium.glb');
  const scene = sk.TrackScene.fromGltf(new Uint8Array(readFileSync(glb)), 'stadium');
  const track = scene.track;
  const world = new sk.World();
  world.setSceneGround(scene);
  for (let slot = 0; slot < 2; slot++) world.setDriverOnTrack(world.addPresetCar('rwd_sports', sk.gridPose(track, slot)), track);
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, trackDefinition: track.definitionJson() });
  for (let step = 0; step < 900; step++) recorder.step(world, 1 / 60);
  const replay = join(work, 'stadium-bare.skr');
  writeFileSync(replay, sk.encodeReplay(recorder.finish(world)));
  const meshes = scene.meshCount;
  world.free();
  scene.free();
  // Natively too, the replay needs the scene beside it.
  const verdict = execFileSync(bin, ['verify', replay, '--ground', glb]).toString();
  assert.match(verdict, /0 desyncs/, verdict);

  const server = await view([glb, replay]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const shown = await page.evaluate(() => ({
        notice: document.querySelector('#notice').textContent,
        named: window.viewer.scene.scene.children.map((c) => c.name).filter(Boolean),
        desyncs: window.viewer.result.desyncs,
        track: window.viewer.recording.meta.metadata.track,
      }));
      assert.match(shown.notice, /glTF scene stadium\.glb/);
      for (const node of ['road', 'kerbs', 'verge', 'gravel_trap', 'grandstand']) {
        assert.ok(shown.named.includes(node), `the scene's ${node} is drawn: ${shown.named}`);
      }
      assert.equal(shown.desyncs, 0);
      assert.equal(shown.track, track.fingerprint);
      ok(`a race on a glTF circuit (pygltflib's stadium), its ground not carried: played on the scene's ground with the page's importer and drawn with the scene's ${meshes} meshes (${shown.named.join(', ')})`);
    });
  } finally {
    server.child.kill();
  }
}

export async function checkTrackFile(browser) {
  const csvFile = join(root, 'track-import/tests/data/tum/BrandsHatch.csv');
  const circuit = sk.TrackView.fromTumCsv(readFileSync(csvFile, 'utf8'), 'BrandsHatch');
  const world = new sk.World();
  world.setGroundOfTrack(circuit);
  for (let slot = 0; slot < 2; slot++) world.setDriverOnTrack(world.addPresetCar('rwd_sports', sk.gridPose(circuit, slot)), circuit);
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, trackDefinition: circuit.definitionJson(), carryTrack: false });
  for (let step = 0; step < 600; step++) recorder.step(world, 1 / 60);
  const replay = join(work, 'brands-hatch-bare.skr');
  writeFileSync(replay, sk.encodeReplay(recorder.finish(world)));
  world.free();
  const key = circuit.fingerprint;
  circuit.free();
  const server = await view([replay, '--track', csvFile]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const shown = await page.evaluate(() => ({
        notice: document.querySelector('#notice').textContent,
        desyncs: window.viewer.result.desyncs,
        named: window.viewer.recording.meta.metadata.track,
        drawn: window.viewer.recording.meta.track?.name ?? null,
      }));
      assert.match(shown.notice, /track BrandsHatch\.csv/);
      assert.equal(shown.named, key);
      assert.equal(shown.drawn, 'BrandsHatch', 'the circuit is drawn and laps are timed on it');
      assert.equal(shown.desyncs, 0);
      ok(`a race naming Brands Hatch by fingerprint only, served with the circuit's CSV (--track): timed and drawn on the circuit, played on its generated ground with 0 desyncs`);
    });
  } finally {
    server.child.kill();
  }
}
