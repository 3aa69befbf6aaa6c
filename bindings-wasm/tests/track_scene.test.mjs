// A glTF circuit in the npm package: the stadium pygltflib writes
// (track-import/tests/gltf/write_scene.py; `cargo xtask test` runs it into
// the folder SKIDPAD_TEST_SCENES names) imports as natively, a car races
// on its ground, and the replay, carrying track and ground, verifies in
// wasm and in the native binary (SKIDPAD_BIN).

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sk, DT } from './helpers.mjs';

const scenes = process.env.SKIDPAD_TEST_SCENES;
const bin = process.env.SKIDPAD_BIN;
if (!scenes && process.env.SKIDPAD_REQUIRE_SCENES) {
  throw new Error('SKIDPAD_REQUIRE_SCENES is set but SKIDPAD_TEST_SCENES is not');
}
const skip = !scenes && 'SKIDPAD_TEST_SCENES not set (cargo xtask test sets it)';

test('TrackScene imports the stadium with its surfaces, meshes and report', { skip }, () => {
  const bytes = new Uint8Array(readFileSync(join(scenes, 'stadium.glb')));
  const scene = sk.TrackScene.fromGltf(bytes, 'stadium');
  const track = scene.track;
  assert.equal(track.name, 'stadium');
  assert.ok(Math.abs(track.length - 776.99) < 1.6, `${track.length} m`);
  const report = scene.report();
  assert.equal(report.control_points, 64);
  assert.deepEqual(report.scene.ground_triangles, { dry_asphalt: 400, grass: 400, gravel: 400, kerb: 800 });
  assert.deepEqual(report.warnings, []);
  assert.equal(scene.meshCount, 6);
  const meshes = Array.from({ length: scene.meshCount }, (_, k) => scene.mesh(k));
  const stand = meshes.find((m) => m.node === 'grandstand');
  assert.equal(stand.surface, null);
  assert.equal(stand.material, 'Concrete');
  assert.equal(stand.indices.length, 36);
  assert.equal(stand.positions.length, 24);
  assert.equal(meshes.find((m) => m.material === 'Tarmac').surface, 0);
  // The same report as the track's own check on the generated ground,
  // but for the ground and the scene.
  const plain = track.report();
  assert.equal(plain.fingerprint, report.fingerprint);
  assert.equal(plain.scene, undefined);
  assert.throws(() => scene.mesh(6), /the scene has 6 meshes/);
  assert.throws(() => sk.TrackScene.fromGltf(bytes, 'stadium', 1000), /budget of 1000 triangles/);
  assert.throws(() => sk.TrackScene.fromGltf(bytes.subarray(0, 100), 'cut'), /not a glTF 2.0 file/);
  assert.throws(() => sk.TrackScene.fromGltf('glTF', 'x'), RangeError);
});

test('a race on the scene\'s ground carries it, and verifies in wasm and natively', { skip }, () => {
  const scene = sk.TrackScene.fromGltf(new Uint8Array(readFileSync(join(scenes, 'stadium.glb'))), 'stadium');
  const track = scene.track;
  const world = new sk.World();
  world.setSceneGround(scene);
  const car = world.addPresetCar('rwd_sports', sk.gridPose(track, 0));
  world.setDriverOnTrack(car, track);
  const recorder = new sk.ReplayRecorder(world, {
    keyframeEvery: 60, carryGround: true, trackDefinition: track.definitionJson(),
  });
  for (let step = 0; step < 900; step++) recorder.step(world, DT);
  const bytes = sk.encodeReplay(recorder.finish(world));
  const replay = sk.decodeReplay(bytes);
  assert.equal(replay.track().fingerprint, track.fingerprint);
  assert.equal(sk.verifyReplay(bytes).valid, true);
  // 15 s from the grid on the scene's tarmac: past the first bend.
  const pose = world.pose(car);
  const [along] = track.locate(pose.x, pose.y);
  assert.ok(along > 250 && along < 700, `${along} m along`);
  if (bin) {
    const file = join(mkdtempSync(join(tmpdir(), 'scene-')), 'scene.skr');
    writeFileSync(file, bytes);
    const said = execFileSync(bin, ['verify', file]).toString();
    assert.match(said, /0 desyncs/);
  }
  // Without what it carries, the scene's ground file goes beside it.
  assert.equal(scene.groundFile().length > 0, true);
});
