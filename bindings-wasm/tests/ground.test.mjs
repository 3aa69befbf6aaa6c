// Grounds and contacts from JS: a mesh or heightfield built from typed
// arrays carries the cars, contacts come back as objects, and a replay
// recorded on a ground plays only in a world on the same ground, or
// anywhere when it carries that ground.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, DT } from './helpers.mjs';

// A 200 m × 40 m ramp rising 10 % towards +x, asphalt on the first
// triangle, gravel on the second (split along the diagonal).
const ramp = () => ({
  vertices: new Float64Array([-10, -20, 0, 190, -20, 20, 190, 20, 20, -10, 20, 0]),
  triangles: new Uint32Array([0, 1, 2, 0, 2, 3]),
  surfaces: new Uint8Array([0, 2]),
});

function rampRace() {
  const world = new sk.World();
  const { vertices, triangles, surfaces } = ramp();
  world.setMeshGround(vertices, triangles, surfaces);
  // The first car runs up the ramp into the second, parked ahead of it.
  world.addPresetCar('rwd_sports', { x: 0, y: -3, speed: 14 });
  world.addPresetCar('rwd_sports', { x: 14, y: -3 });
  return world;
}

test('cars ride a mesh built from typed arrays, and run into each other', () => {
  const world = rampRace();
  assert.match(world.groundFingerprint, /^[0-9a-f]{64}$/);
  assert.notEqual(world.groundFingerprint, new sk.World().groundFingerprint);
  let met = null;
  for (let step = 0; step < 120; step++) {
    world.step(DT);
    met ??= world.contacts().find((c) => c.second === 1) ?? null;
  }
  assert.ok(met, 'the cars met');
  assert.equal(met.first, 0);
  assert.ok(met.impulse > 0 && met.depth > 0);
  assert.equal(met.point.length, 3);
  const pose = world.pose(1);
  // On the ramp: the centre of mass about half a metre above z = 0.1 (x + 10).
  const above = pose.z - 0.1 * (pose.x + 10);
  assert.ok(above > 0.3 && above < 0.8, `${above} m above the ramp`);
  assert.ok(pose.pitch < -0.05, `nose up the 10 % ramp: pitch ${pose.pitch}`);
  world.free();
});

test('a replay recorded on a mesh plays only on that mesh', () => {
  const world = rampRace();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < 150; step++) recorder.step(world, DT);
  const replay = recorder.finish(world);
  assert.match(replay.metadata()['skidpad.ground'], /^[0-9a-f]{64} triangle mesh of 2 triangles$/);

  assert.throws(
    () => new sk.ReplayPlayer(sk.createReplayWorld(replay), replay),
    /recorded on the triangle mesh of 2 triangles .* but the world stands on the plane z = 0/,
  );
  const onRamp = sk.createReplayWorld(replay);
  const { vertices, triangles, surfaces } = ramp();
  onRamp.setMeshGround(vertices, triangles, surfaces);
  const player = new sk.ReplayPlayer(onRamp, replay);
  while (player.advance()) {
    // every step is checked against the keyframes as it plays
  }
  assert.equal(player.desyncs, 0);
  assert.equal(player.worldHash(), world.worldHash());
  world.free();
});

test('a replay carrying its mesh (carryGround) plays without it and gives its triangles', () => {
  const world = rampRace();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, carryGround: true });
  for (let step = 0; step < 150; step++) recorder.step(world, DT);
  const replay = sk.decodeReplay(sk.encodeReplay(recorder.finish(world)));
  // The world createReplayWorld builds stands on the carried ramp.
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  while (player.advance()) {
    // every step is checked against the keyframes as it plays
  }
  assert.equal(player.desyncs, 0);
  assert.equal(player.worldHash(), world.worldHash());
  const drawn = replay.carriedGround();
  const { vertices, triangles, surfaces } = ramp();
  assert.deepEqual(Array.from(drawn.positions), Array.from(vertices));
  assert.deepEqual(Array.from(drawn.indices), Array.from(triangles));
  assert.deepEqual(Array.from(drawn.surfaces), Array.from(surfaces));
  assert.equal(drawn.description, 'triangle mesh of 2 triangles');
  // Nothing to carry on the plane or a built-in track's surface.
  const plain = new sk.World();
  assert.throws(() => new sk.ReplayRecorder(plain, { carryGround: true }), RangeError);
  plain.setTrackGround('brandwood');
  assert.throws(() => new sk.ReplayRecorder(plain, { carryGround: true }), /not set from a heightfield or a mesh/);
  plain.addPresetCar('rwd_sports', sk.gridPose(new sk.TrackView('brandwood'), 0));
  assert.equal(new sk.ReplayRecorder(plain, {}).finish(plain).carriedGround(), null);
  world.free();
  plain.free();
});

test('a stream carries the mesh in its header: readStream keeps it, a late follower plays and draws it', () => {
  const world = rampRace();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 30, carryGround: true });
  for (let step = 0; step < 150; step++) recorder.step(world, DT);
  const stream = sk.encodeStream(recorder.finish(world));
  const read = sk.readStream(stream);
  assert.ok(read.complete);
  assert.equal(read.replay.carriedGround().description, 'triangle mesh of 2 triangles');
  const pieces = sk.splitStream(stream);
  const chunks = pieces.filter((p) => p.kind === 'chunk');
  assert.equal(chunks.length, 5);
  // Joining at the third chunk: the follower has the ramp from the header.
  const follower = new sk.StreamFollower(pieces[0].bytes);
  assert.equal(follower.groundDescription, 'triangle mesh of 2 triangles');
  assert.equal(follower.groundTrack, undefined, 'a game\'s own ground is no built-in track');
  assert.deepEqual(Array.from(follower.carriedGround().indices), Array.from(ramp().triangles));
  for (const chunk of chunks.slice(2)) follower.pushChunk(chunk.bytes);
  assert.equal(follower.worldHash(), world.worldHash());
  world.free();
});

test('a follower of a race on a built-in surface names the track it runs on', () => {
  const world = new sk.World();
  world.setTrackGround('hillcrest');
  world.addPresetCar('rwd_sports', sk.gridPose(new sk.TrackView('hillcrest'), 0));
  world.setInput(0, { throttle: 0.5 });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 30 });
  for (let step = 0; step < 90; step++) recorder.step(world, DT);
  const pieces = sk.splitStream(sk.encodeStream(recorder.finish(world)));
  const follower = new sk.StreamFollower(pieces[0].bytes);
  assert.equal(follower.groundTrack, 'hillcrest');
  assert.equal(follower.carriedGround(), null);
  // Every chunk plays on Hillcrest's surface to the host's bits.
  for (const piece of pieces.filter((p) => p.kind === 'chunk')) follower.pushChunk(piece.bytes);
  assert.equal(follower.worldHash(), world.worldHash());
  world.free();
});

test('a replay plays on the ground of a ground file given beside it', () => {
  const world = rampRace();
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60 });
  for (let step = 0; step < 150; step++) recorder.step(world, DT);
  const replay = recorder.finish(world);
  const file = world.groundFile();
  assert.equal(sk.fileKind(file), 'ground');
  assert.throws(() => new sk.ReplayPlayer(sk.createReplayWorld(replay), replay), /but the world stands on the plane/);
  const given = replay.withGroundFile(file);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(given), given);
  while (player.advance()) {
    // every step is checked against the keyframes as it plays
  }
  assert.equal(player.desyncs, 0);
  assert.equal(player.worldHash(), world.worldHash());
  assert.equal(given.carriedGround().description, 'triangle mesh of 2 triangles');
  const damaged = file.slice();
  damaged[12] ^= 1;
  assert.throws(() => replay.withGroundFile(damaged), /checksum/);
  assert.throws(() => new sk.World().groundFile(), RangeError);
  world.free();
});

test('a heightfield from options carries a car, and bad grounds throw RangeError', () => {
  const world = new sk.World();
  world.setHeightfieldGround({
    x0: -50, y0: -50, spacing: 10, columns: 11, rows: 11,
    heights: new Float64Array(121).fill(3),
  });
  const car = world.addPresetCar('fwd_hatchback');
  for (let step = 0; step < 60; step++) world.step(DT);
  const z = world.pose(car).z;
  assert.ok(z > 3.3 && z < 3.8, `resting on the 3 m plateau: z = ${z}`);

  const bad = [
    () => world.setHeightfieldGround({ x0: 0, y0: 0, spacing: 1, columns: 2, rows: 2, heights: new Float64Array(3) }),
    () => world.setHeightfieldGround({ x0: 0, y0: 0, spacing: 1, columns: 2, rows: 2, heights: [0, 0, 0, 0] }),
    () => world.setMeshGround(new Float64Array([0, 0]), new Uint32Array([0, 1, 2])),
    () => world.setMeshGround(new Float64Array(9), new Uint32Array([0, 1, 2])),
    () => world.setMeshGround(ramp().vertices, new Uint32Array([0, 1, 9])),
    () => world.setMeshGround(ramp().vertices, ramp().triangles, new Uint8Array([0, 15])),
  ];
  for (const call of bad) assert.throws(call, RangeError);
  // Nothing changed: the car still stands on the plateau.
  world.step(DT);
  assert.ok(Math.abs(world.pose(car).z - z) < 0.01);
  world.free();
});

test('a race on a built-in track surface records and verifies', () => {
  const world = new sk.World();
  const plane = world.groundFingerprint;
  world.setTrackGround('hillcrest');
  assert.notEqual(world.groundFingerprint, plane);
  const track = new sk.TrackView('hillcrest');
  for (let slot = 0; slot < 2; slot++) {
    const id = world.addPresetCar('rwd_sports', sk.gridPose(track, slot));
    world.setDriver(id, 'hillcrest');
  }
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, metadata: { track: 'hillcrest' } });
  // The race layer times the game's own world from world.poses(), as the
  // README's web-page example does.
  const timing = new sk.RaceTiming(track, world.poses());
  for (let step = 0; step < 240; step++) {
    recorder.step(world, DT);
    assert.deepEqual(timing.observe((step + 1) * DT, world.poses()), [], 'no lap in 4 s');
  }
  const standings = timing.standings();
  assert.equal(standings.length, 2);
  assert.ok(standings.every((s) => s.laps === 0));
  const report = sk.verifyReplay(sk.encodeReplay(recorder.finish(world)));
  assert.equal(report.desyncs, 0);
  assert.equal(report.finalHash, world.worldHash());
  assert.throws(() => world.setTrackGround('monza'), RangeError);
  world.free();
});
