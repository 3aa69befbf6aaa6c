// The input layer through the package: the same numbers as the Rust
// crate's own tests, a keyboard driving a World through carInputFrom (the
// world runs exactly the input the layer made), and strict arguments.

import test from 'node:test';
import assert from 'node:assert/strict';
import { sk, DT } from './helpers.mjs';

const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

test('keyboard steering ramps, centres and shrinks with speed', () => {
  const keys = new sk.KeyboardControls();
  close(keys.update({ right: true }, 0.1, 0).steer, 0.25, 'a tenth of a second of right');
  for (let i = 0; i < 60; i++) keys.update({ right: true }, DT, 0);
  assert.equal(keys.update({ right: true }, DT, 0).steer, 1);
  close(keys.update({}, 0.1, 0).steer, 0.6, 'centring at 4 per second');
  const fast = new sk.KeyboardControls({ authoritySpeed: 20 });
  for (let i = 0; i < 120; i++) fast.update({ left: true }, DT, 20);
  close(fast.update({ left: true }, DT, 20).steer, -0.5, 'half the reach at authoritySpeed');
  assert.throws(() => new sk.KeyboardControls({ steerRate: -1 }), RangeError);
  assert.throws(() => new sk.KeyboardControls({ steerRate: 'fast' }), RangeError);
});

test('a keyboard drives a world, which runs exactly the input it was given', () => {
  const world = new sk.World();
  const car = world.addPresetCar('rwd_sports');
  const keys = new sk.KeyboardControls();
  const gears = new sk.GearSelector('automatic', 6);
  for (let step = 0; step < 180; step++) {
    const speed = world.channel(car, 'speed');
    const controls = keys.update({ throttle: true, right: step > 120 }, DT, speed);
    const input = sk.carInputFrom(controls, gears.update({}), 6);
    world.setInput(car, input);
    world.step(DT);
    assert.deepEqual(world.input(car), input, `step ${step}`);
  }
  assert.ok(world.channel(car, 'speed') > 8, 'it accelerated');
  assert.ok(world.channel(car, 'input_steer') > 0, 'and steers right');
  world.free();
});

const WHEEL = JSON.stringify({
  name: 'wheel with split pedals',
  steer: { axis: 0, travel: { left: -1, rest: 0, right: 1 }, response: { dead_zone: 0.02 } },
  pedals: { split: {
    throttle: { axis: 2, travel: { rest: 1, pressed: -1 } },
    brake: { axis: 3, travel: { rest: 1, pressed: -1 }, response: { exponent: 1.5 } },
  } },
  buttons: { shift_up: 4, shift_down: 5, handbrake: 1 },
});

test('a device profile maps axes and buttons, and a bad one names its field', () => {
  const wheel = sk.DeviceProfile.fromJson(WHEEL);
  assert.equal(wheel.name, 'wheel with split pedals');
  const c = wheel.controls(new Float64Array([0.51, 0, -1, 0]), new Uint8Array([0, 1, 0, 0, 1]));
  close(c.steer, 0.5, 'steer past the dead zone');
  assert.equal(c.throttle, 1);
  close(c.brake, 0.5 ** 1.5, 'brake curve');
  assert.equal(c.handbrake, 1);
  assert.deepEqual(wheel.shiftButtons(new Uint8Array([0, 0, 0, 0, 1])), { up: true, down: false, gate: null });
  const nan = wheel.controls(new Float64Array([NaN, NaN, NaN, NaN]), new Uint8Array());
  assert.deepEqual(nan, { steer: 0, throttle: 0, brake: 0, handbrake: 0, clutch: 0 }, 'NaN reads as rest');
  assert.deepEqual(JSON.parse(sk.DeviceProfile.fromJson(wheel.toJson()).toJson()), JSON.parse(wheel.toJson()));
  assert.throws(() => sk.DeviceProfile.fromJson(WHEEL.replace('"dead_zone":0.02', '"dead_zone":0.7')), /steer\.response\.dead_zone/);
  assert.throws(() => sk.DeviceProfile.fromJson('{'), RangeError);
  assert.throws(() => wheel.controls([0.5], new Uint8Array()), RangeError);
  assert.throws(() => wheel.controls(new Float64Array(1), [true]), RangeError);
  const pad = sk.DeviceProfile.standardGamepad();
  const axes = new Float64Array(8);
  axes[7] = 0.5;
  assert.equal(pad.controls(axes, new Uint8Array(16)).throttle, 0.5, 'right trigger accelerates');
});

test('gears, the mixer and the axis finder', () => {
  const seq = new sk.GearSelector('sequential', 3);
  assert.equal(seq.update({ up: true }), 1);
  assert.equal(seq.update({ up: true }), 1, 'held: one shift');
  seq.update({});
  assert.equal(seq.update({ up: true }), 2);
  assert.equal(seq.gear, 2);
  assert.throws(() => new sk.GearSelector('manual', 6), RangeError);
  assert.throws(() => seq.update({ gate: 1.5 }), RangeError);

  const mixer = new sk.InputMixer();
  const frame = (steer) => ({ controls: { steer }, shift: {} });
  assert.equal(mixer.update([frame(0), frame(0)]).device, null);
  const mixed = mixer.update([frame(0), frame(0.5)]);
  assert.equal(mixed.device, 1);
  assert.equal(mixed.controls.steer, 0.5);
  assert.equal(mixer.update([frame(-0.4), frame(0.5)]).device, 0);

  const finder = new sk.AxisFinder(new Float64Array([0, 1, 1]), new Uint32Array([0]));
  assert.equal(finder.found(), null);
  finder.observe(new Float64Array([0.9, 1, -1]));
  const found = finder.found();
  assert.equal(found.axis, 2);
  assert.deepEqual(found.pedal, { rest: 1, pressed: -1 });
  assert.equal(found.centred, null);
});

test('force feedback is capped, latches on runaway and goes quiet when hidden or stalled', () => {
  const ff = new sk.ForceFeedback({ smoothing: 0 });
  let out;
  for (let k = 0; k < 100; k++) out = ff.update({ now: k / 100, lastUpdate: k / 100, torque: 10, wheelSpeed: 0 });
  assert.deepEqual(out, { output: 0.4, silenced: null });
  assert.ok(ff.statistics().clipped > 0);
  assert.deepEqual(ff.update({ now: 1.01, lastUpdate: 1.01, torque: 10, wheelSpeed: 0, visible: false }), { output: 0, silenced: 'hidden' });
  assert.deepEqual(ff.update({ now: 1.5, lastUpdate: 1.2, torque: 10, wheelSpeed: 0 }), { output: 0, silenced: 'stalled' });
  assert.deepEqual(ff.update({ now: 1.6, lastUpdate: 1.6, torque: 10, wheelSpeed: 15 }), { output: 0, silenced: 'runaway' });
  assert.equal(ff.update({ now: 1.7, lastUpdate: 1.7, torque: 10, wheelSpeed: 0 }).silenced, 'runaway', 'latched');
  ff.rearm();
  assert.equal(ff.update({ now: 1.8, lastUpdate: 1.8, torque: 10, wheelSpeed: 0 }).silenced, null);
  assert.throws(() => new sk.ForceFeedback({ maxOutput: 2 }), RangeError);
  assert.throws(() => ff.update({ now: 'later' }), RangeError);
});

test('carInputFrom clamps, rounds and checks its gear', () => {
  const input = sk.carInputFrom({ steer: 2, throttle: 0.1234567 }, -1, 6);
  assert.equal(input.steer, 1);
  assert.equal(input.throttle, Math.round(0.1234567 * 65536) / 65536);
  assert.equal(input.gear, -1);
  assert.throws(() => sk.carInputFrom({}, 0.5, 6), RangeError);
});
