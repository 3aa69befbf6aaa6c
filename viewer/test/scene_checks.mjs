// A game's glTF circuit in the viewer: the stadium pygltflib writes
// (track-import/tests/gltf/write_scene.py, run by `cargo xtask test` into
// the folder SKIDPAD_TEST_SCENES names) raced with the npm package under
// node, the replay carrying its track but not its ground; served with the
// scene beside it (`skidpad view REPLAY stadium.glb`), the page imports
// the scene, re-simulates the race on its ground bit for bit and draws
// the scene's own meshes, the grandstand among them.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';
import { bin, ok, view, withViewer, work } from './harness.mjs';

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
