// The World in JS: the reference scenario's bits, telemetry, snapshots.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, nativeGolden, DT } from './helpers.mjs';

test('the reference scenario run inside wasm gives the native GOLDEN hash', () => {
  assert.equal(sk.referenceScenarioHash(), nativeGolden());
});

test('the reference scenario driven call by call from JS gives the same hash', () => {
  // skidpad_fixtures::reference_world and reference_events, through
  // the public JS API.
  const world = new sk.World();
  const presets = ['fwd_hatchback', 'rwd_sports', 'rwd_sports', 'fwd_hatchback'];
  presets.forEach((name, k) => {
    const id = world.addPresetCar(name, { x: 60 - 12 * k, y: k % 2 === 0 ? 2.5 : -2.5, speed: 5 });
    world.setDriver(id, 'brandwood');
  });
  const events = {
    120: () => world.setLod(1, 'singleTrack'),
    200: () => world.setWheelSurface(0, 'fl', 'grass'),
    260: () => world.setSurface(0, 0),
    300: () => world.setLod(2, 'full', 500),
    360: () => world.setLod(1, 'full'),
    420: () => world.setLod(3, 'frozen'),
    480: () => world.setLod(3, 'full'),
  };
  for (let step = 0; step < 600; step++) {
    events[step]?.();
    world.step(DT);
  }
  assert.equal(world.stepCount, 600);
  assert.equal(world.worldHash(), nativeGolden());
  world.free();
});

test('versions are exposed', () => {
  assert.equal(typeof sk.simulationVersion(), 'number');
  assert.ok(sk.simulationVersion() >= 1);
  assert.match(sk.coreVersion(), /^\d+\.\d+\.\d+/);
});

test('telemetry is a Float64Array with one value per named channel', () => {
  const world = new sk.World();
  const car = world.addPresetCar('rwd_sports');
  world.setInput(car, { throttle: 1, gear: 1 });
  world.stepMany(120, DT);
  const names = sk.channelNames();
  const units = sk.channelUnits();
  const values = world.telemetry(car);
  assert.ok(values instanceof Float64Array);
  assert.equal(values.length, names.length);
  assert.equal(units.length, names.length);
  // How to draw each channel between samples, and where a chart lists it.
  const modes = sk.channelInterpolations();
  const groups = sk.channelGroups();
  assert.equal(modes.length, names.length);
  assert.equal(groups.length, names.length);
  assert.equal(modes[names.indexOf('gear')], 'discrete');
  assert.equal(modes[names.indexOf('yaw')], 'lerpAngle');
  assert.equal(modes[names.indexOf('speed')], 'lerp');
  assert.equal(groups[names.indexOf('wheel_fl_load')], 'wheel fl');
  assert.equal(new Set(names).size, names.length, 'names are unique');
  const speed = names.indexOf('speed');
  assert.ok(speed >= 0);
  assert.equal(values[speed], world.channel(car, 'speed'));
  assert.ok(values[speed] > 5, `accelerated to ${values[speed]} m/s in 2 s`);
  assert.ok(values.every(Number.isFinite));
  assert.equal(world.pose(car).speed, values[speed]);
  assert.deepEqual(world.input(car), { steer: 0, throttle: 1, brake: 0, handbrake: 0, clutch: 0, gear: 1 });
});

test('snapshot and restore continue bit for bit', () => {
  const world = new sk.World();
  for (const name of sk.presetNames()) world.setDriver(world.addPresetCar(name, { speed: 10 }), 'brandwood');
  world.stepMany(90, DT);
  const ids = [...world.carIds()];
  const saved = ids.map((id) => world.snapshot(id));
  world.stepMany(150, DT);
  const expected = ids.map((id) => world.carHash(id));
  // Restore into the same world and into a fresh one; both continue alike.
  saved.forEach((bytes, id) => world.restore(id, bytes));
  world.stepMany(150, DT);
  const other = new sk.World();
  for (const name of sk.presetNames()) other.setDriver(other.addPresetCar(name), 'brandwood');
  saved.forEach((bytes, id) => other.restore(id, bytes));
  other.stepMany(150, DT);
  assert.deepEqual(ids.map((id) => world.carHash(id)), expected);
  assert.deepEqual(ids.map((id) => other.carHash(id)), expected);
});

test('a car from definition JSON equals the preset it was written from', () => {
  const a = new sk.World();
  const b = new sk.World();
  const json = sk.presetDefinition('fwd_hatchback');
  assert.equal(JSON.parse(json).constructor, Object);
  a.addPresetCar('fwd_hatchback', { x: 3 });
  b.addCar(json, { x: 3 });
  for (const w of [a, b]) {
    w.setInput(0, { throttle: 0.7, steer: -0.2, gear: 1 });
    w.stepMany(100, DT);
  }
  assert.equal(a.worldHash(), b.worldHash());
});

test('the racing field used by the speed benchmark is the native one', () => {
  const world = sk.racingWorld(4, 'full', true);
  assert.equal(world.carIds().length, 4);
  assert.equal(world.stepCount, 120);
  assert.ok(world.pose(0).speed > 5);
});
