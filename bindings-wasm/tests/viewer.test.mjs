// What a viewer reads from the package: every car's pose per step in one
// call, the step times, every step of a live chunk, a track's centre line
// and the live gap to a ghost lap.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, repoRoot } from './helpers.mjs';

const FIELDS = sk.poseFields();

function race(steps) {
  const world = new sk.World();
  ['rwd_sports', 'fwd_hatchback'].forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 40 - 12 * k, speed: 8 });
    world.setDriver(id, 'brandwood');
  });
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, metadata: { track: 'brandwood' } });
  for (let step = 0; step < steps; step++) recorder.step(world, step < 100 ? DT : DT / 2);
  return recorder.finish(world);
}

const replay = race(150);

test('ReplayPlayer.poses and telemetryAll pack every car, stepTimes sums the step lengths', () => {
  assert.deepEqual(FIELDS, ['x', 'y', 'z', 'yaw', 'pitch', 'roll', 'steer', 'speed']);
  const times = replay.stepTimes();
  assert.equal(times.length, replay.stepCount + 1);
  assert.equal(times[0], 0);
  assert.ok(Math.abs(times[150] - replay.duration) < 1e-12);
  assert.ok(Math.abs(times[101] - times[100] - DT / 2) < 1e-12);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const channels = sk.channelNames().length;
  do {
    const telemetry = player.telemetryAll();
    assert.equal(telemetry.length, 2 * channels);
    assert.deepEqual(telemetry.subarray(channels), Float32Array.from(player.telemetry(1)));
    const poses = player.poses();
    assert.equal(poses.length, 2 * FIELDS.length);
    for (let car = 0; car < 2; car++) {
      const pose = player.pose(car);
      FIELDS.forEach((f, k) => assert.equal(poses[car * FIELDS.length + k], pose[f]));
    }
  } while (player.advance());
});

test('pushChunkPoses gives the step length and poses of every step of a chunk', () => {
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const expected = [null];
  while (player.advance()) expected.push(player.poses());
  const pieces = sk.splitStream(sk.encodeStream(replay));
  const follower = new sk.StreamFollower(pieces[0].bytes);
  assert.equal(follower.carCount, 2);
  assert.equal(follower.metadata().track, 'brandwood');
  assert.match(follower.definition(0), /RWD sports car/);
  assert.throws(() => follower.definition(2), RangeError);
  const width = 1 + 2 * FIELDS.length;
  let step = 0;
  for (const piece of pieces.filter((p) => p.kind === 'chunk')) {
    const values = follower.pushChunkPoses(piece.bytes);
    assert.equal(values.length % width, 0);
    for (let i = 0; i < values.length / width; i++) {
      step += 1;
      assert.equal(values[i * width], step <= 100 ? DT : DT / 2, `dt of step ${step}`);
      assert.deepEqual(values.subarray(i * width + 1, (i + 1) * width), expected[step], `poses of step ${step}`);
    }
  }
  assert.equal(step, 150);
  assert.equal(follower.worldHash(), replay.finalHash);
});

test('TrackView gives the centre line and projects onto it', () => {
  const track = new sk.TrackView('brandwood');
  const points = track.points();
  assert.equal(points.length % 2, 0);
  assert.ok(track.length > 1000 && track.width > 5);
  const [distance, offset] = track.locate(points[0], points[1]);
  assert.ok(distance < 1e-9 || track.length - distance < 1e-9);
  assert.ok(Math.abs(offset) < 1e-9);
  assert.throws(() => new sk.TrackView('nowhere'), Error);
  assert.throws(() => track.locate(NaN, 0), RangeError);
});

test('TrackView gives elevation and banking per point, zero on a flat track', () => {
  const flat = new sk.TrackView('brandwood');
  assert.equal(flat.elevation().length, flat.points().length / 2);
  assert.ok(flat.elevation().every((z) => z === 0) && flat.banking().every((b) => b === 0));
  const hills = new sk.TrackView('hillcrest');
  const z = hills.elevation();
  assert.equal(z.length, hills.points().length / 2);
  assert.equal(hills.banking().length, z.length);
  // Hillcrest climbs 18 m and banks its bends.
  assert.ok(Math.max(...z) - Math.min(...z) > 15, `${Math.max(...z) - Math.min(...z)} m of climb`);
  assert.ok(hills.banking().some((b) => Math.abs(b) > 0.02));
});

test('TrackView loads an own track: a real circuit from its CSV, and a definition', () => {
  // Brands Hatch from the TUM racetrack database (LGPL-3.0, see
  // track-import/tests/data/tum/PROVENANCE.md): 3 908 m published.
  const csv = readFileSync(join(repoRoot, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch GP');
  assert.equal(circuit.name, 'Brands Hatch GP');
  assert.ok(Math.abs(circuit.length - 3908) / 3908 < 0.002, `${circuit.length} m`);
  assert.match(circuit.fingerprint, /^[0-9a-f]{64}$/);
  const n = circuit.points().length / 2;
  const edges = circuit.edges();
  assert.equal(edges.length, 2 * n);
  const widths = Array.from({ length: n }, (_, k) => edges[2 * k] + edges[2 * k + 1]);
  assert.ok(Math.abs(Math.min(...widths) - 7.5) < 0.06 && Math.abs(Math.max(...widths) - 12.1) < 0.06);
  assert.equal(circuit.curvature().length, n);
  assert.deepEqual(Array.from(circuit.sectors()), [circuit.length / 3, (2 * circuit.length) / 3]);
  const [x, y, dx, dy] = circuit.pointAt(1000);
  assert.ok(Math.abs(Math.hypot(dx, dy) - 1) < 1e-12);
  assert.ok(Math.abs(circuit.locate(x, y)[0] - 1000) < 1e-6);
  // Its definition reads back as the same track; the Rust API's checks
  // refuse a bad one, naming the element.
  const again = sk.TrackView.fromDefinition(circuit.definitionJson());
  assert.equal(again.fingerprint, circuit.fingerprint);
  const bad = JSON.parse(circuit.definitionJson());
  bad.sectors = [2000, 1000];
  assert.throws(() => sk.TrackView.fromDefinition(JSON.stringify(bad)), /sectors\[1\]/);
  assert.throws(() => sk.TrackView.fromTumCsv('0,0,4,4\n1,NaN,4,4\n', 'x'), /line 2/);
  assert.throws(() => circuit.pointAt(NaN), RangeError);
});

test('a race on an own track: recorded with its definition, it names and carries the track and verifies', () => {
  const csv = readFileSync(join(repoRoot, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch GP');
  const world = new sk.World();
  world.setGroundOfTrack(circuit);
  const car = world.addPresetCar('rwd_sports', sk.gridPose(circuit, 0));
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, trackDefinition: circuit.definitionJson() });
  for (let step = 0; step < 180; step++) {
    world.setInput(car, { throttle: 0.6 });
    recorder.step(world, DT);
  }
  const replay = sk.decodeReplay(sk.encodeReplay(recorder.finish(world)));
  assert.equal(replay.metadata().track, circuit.fingerprint);
  const named = replay.track();
  assert.equal(named.fingerprint, circuit.fingerprint);
  assert.equal(named.name, 'Brands Hatch GP');
  // The file alone rebuilds the circuit's surface and verifies.
  assert.equal(sk.verifyReplay(sk.encodeReplay(replay)).valid, true);
});

test('an own track named by fingerprint only (carryTrack: false) plays once the track is given with withTrack', () => {
  const csv = readFileSync(join(repoRoot, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch GP');
  const world = new sk.World();
  world.setGroundOfTrack(circuit);
  world.addPresetCar('rwd_sports', sk.gridPose(circuit, 0));
  const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, trackDefinition: circuit.definitionJson(), carryTrack: false });
  for (let step = 0; step < 120; step++) recorder.step(world, DT);
  const bytes = sk.encodeReplay(recorder.finish(world));
  const bare = sk.decodeReplay(bytes);
  assert.equal(bare.metadata().track, circuit.fingerprint);
  assert.equal(bare.metadata()['skidpad.track'], undefined, 'the definition is not carried');
  assert.throws(() => bare.track(), /give the track's file/);
  const given = bare.withTrack(sk.TrackView.fromDefinition(circuit.definitionJson()));
  assert.equal(given.track().fingerprint, circuit.fingerprint);
  const player = new sk.ReplayPlayer(sk.createReplayWorld(given), given);
  player.playToEnd();
  assert.equal(player.desyncs, 0, 'played on the generated ground of the track given');
  assert.throws(() => bare.withTrack(new sk.TrackView('hillcrest')), /not the replay's track/);
});

test('LapReference: a car level with its own ghost has no gap', () => {
  const world = new sk.World();
  const car = world.addPresetCar('rwd_sports', { x: 0, speed: 10 });
  world.setDriver(car, 'brandwood');
  const recorder = new sk.GhostRecorder(car);
  const positions = [];
  for (let step = 0; step < 600; step++) {
    world.step(DT);
    recorder.afterStep(world);
    const p = world.pose(car);
    positions.push([p.x, p.y, (step + 1) * DT]);
  }
  const ghost = recorder.finish();
  const track = new sk.TrackView('brandwood');
  const reference = new sk.LapReference(ghost, track);
  assert.equal(reference.lapLength, track.length);
  for (const [x, y, t] of positions.filter((_, k) => k % 50 === 10)) {
    const gap = reference.gap(x, y, t);
    assert.ok(Math.abs(gap) < 0.02, `gap ${gap} at ${t}`);
  }
  // One second later at the same place: a second behind.
  const [x, y, t] = positions[300];
  assert.ok(Math.abs(reference.gap(x, y, t + 1) - 1) < 0.02);
  assert.equal(reference.gap(NaN, 0, 1), undefined);
  assert.ok(reference.timeAt(reference.distanceFromStart(x, y)) > 0);
});
