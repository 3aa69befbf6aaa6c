// The viewer's pure modules under node --test: interpolation and cuts
// (recording.mjs), the wall clock and the event cursor (clock.mjs) and lap
// events from the wasm package's race layer (laps.mjs), the deep
// link's checks (sources.mjs), the chart's channel groups and angle
// wraps (telemetry.mjs), the standings (race_info.mjs) and laps on a
// distance axis (lap_overlay.mjs), events in words (timeline.mjs), the device calibration (calibration.mjs) and the
// WebHID wheel reports (wheel_hid.mjs), drivers' names (scene_data.mjs), the
// entry desk's address (race_entry.mjs). The page as a
// whole is tested in Chromium (run.mjs).

import test from 'node:test';
import assert from 'node:assert/strict';
import { Recording, POSE, POSE_FIELDS } from '../src/recording.mjs';
import { Clock, EventCursor, LIVE_DELAY } from '../src/clock.mjs';
import { createRequire } from 'node:module';
import { RaceLaps, invalidity } from '../src/laps.mjs';
import { checkPosition, checkSettings, readLink } from '../src/sources.mjs';
import { angleWraps, groupChannels } from '../src/telemetry.mjs';
import { gapText, resetThisLap, standingsAt } from '../src/race_info.mjs';
import { atDistances, lapSamples, timeAtDistance } from '../src/lap_overlay.mjs';
import { carTitle, withDrivers } from '../src/scene_data.mjs';
import { describeEvent } from '../src/timeline.mjs';
import { decodeDriver, entryFileName, entryUrl } from '../src/race_entry.mjs';

// The node half of the npm package (built by `cargo xtask wasm`).
const sk = createRequire(import.meta.url)('../../bindings-wasm/pkg/node/skidpad_wasm.js');

const DT = 1 / 60;

/** A one-car recording of `n` samples whose pose comes from `at(step)`. */
function recording(n, at) {
  const meta = { cars: [{}], channels: [], samples: n, steps: n - 1, track: null };
  const rec = new Recording(meta);
  const batch = {
    from: 0,
    count: n,
    steps: new Float64Array(n),
    times: new Float64Array(n),
    poses: new Float64Array(n * POSE),
    distances: null,
    progress: null,
    telemetry: new Float32Array(0),
    events: [],
  };
  for (let i = 0; i < n; i++) {
    batch.steps[i] = i;
    batch.times[i] = i * DT;
    batch.poses.set(at(i), i * POSE);
  }
  rec.append(batch);
  return rec;
}

/** Straight line at 20 m/s, turning slowly, yaw crossing ±π. */
const cruise = (i) => [20 * i * DT, 0, 0.5, Math.PI - 0.05 + 0.01 * i, 0, 0, 0, 20];

test('poseAt returns each sample exactly at its own time', () => {
  const rec = recording(30, cruise);
  const out = new Float64Array(POSE);
  for (let i = 0; i < 30; i++) {
    assert.deepEqual(Array.from(rec.poseAt(rec.times[i], 0, out)), cruise(i));
  }
});

test('between samples position follows the motion and yaw takes the short way round', () => {
  const rec = recording(30, cruise);
  const out = new Float64Array(POSE);
  rec.poseAt(10.5 * DT, 0, out);
  assert.ok(Math.abs(out[0] - 20 * 10.5 * DT) < 1e-9, `x ${out[0]}`);
  // Samples 4 and 5 have yaw π − 0.01 and π + 0.00 (wrapped: −π); the
  // middle is near π, not near 0.
  const raw = [4, 5].map((i) => Math.atan2(Math.sin(cruise(i)[3]), Math.cos(cruise(i)[3])));
  const wrapped = recording(30, (i) => {
    const p = cruise(i);
    p[3] = Math.atan2(Math.sin(p[3]), Math.cos(p[3]));
    return p;
  });
  wrapped.poseAt(4.5 * DT, 0, out);
  assert.ok(Math.cos(out[3]) < -0.99, `yaw ${out[3]} between ${raw}`);
  // Outside the samples the ends are held.
  assert.equal(rec.poseAt(-1, 0, out)[0], 0);
  assert.equal(rec.poseAt(99, 0, out)[0], cruise(29)[0]);
});

test('a teleport is a cut: no blending across it, the pose snaps to the sample after', () => {
  const jump = (i) => {
    const p = cruise(i);
    if (i >= 10) p[1] = 50;
    return p;
  };
  const rec = recording(20, jump);
  assert.equal(rec.cuts[10], 1);
  assert.equal(rec.cuts[9], 0);
  const out = new Float64Array(POSE);
  rec.poseAt(9.5 * DT, 0, out);
  assert.deepEqual(Array.from(out), jump(10));
  // The slopes next to the cut do not reach across it.
  rec.poseAt(10.5 * DT, 0, out);
  assert.equal(out[1], 50);
});

test('sampleAt and sampleOfStep find samples by time and by step', () => {
  const rec = recording(10, cruise);
  assert.equal(rec.sampleAt(3 * DT), 3);
  assert.equal(rec.sampleAt(3.9 * DT), 3);
  assert.equal(rec.sampleOfStep(7), 7);
  assert.equal(rec.sampleOfStep(70), 9);
  assert.throws(() => rec.append({ from: 3, count: 0 }), /samples from 3 after 10/);
});

test('the clock follows the wall clock times the speed, both ways, and stops at the ends', () => {
  const clock = new Clock();
  clock.setRange(0, 10);
  clock.setSpeed(2);
  clock.play(1);
  clock.tick(1000);
  assert.equal(clock.tick(1500), 1);
  assert.equal(clock.tick(2000), 2);
  clock.play(-1);
  clock.tick(3000);
  assert.equal(clock.tick(3250), 1.5);
  assert.equal(clock.tick(5000), 0);
  assert.equal(clock.paused, true, 'a replay stops at its start');
  clock.seek(42);
  assert.equal(clock.time, 10);
  // A live race follows its newest sample, a little behind.
  const live = new Clock();
  live.live = true;
  live.follow();
  live.setRange(0, 20);
  assert.equal(live.time, 20 - LIVE_DELAY);
  live.tick(0);
  assert.equal(live.tick(10_000), 20 - LIVE_DELAY);
});

test('events fire once when crossed forward, never after a seek or backwards', () => {
  const events = [{ time: 1 }, { time: 2 }, { time: 2.5 }];
  const cursor = new EventCursor();
  assert.deepEqual(cursor.crossed(events, 0.9), []);
  assert.deepEqual(cursor.crossed(events, 1.5), [events[0]]);
  assert.deepEqual(cursor.crossed(events, 1.5), []);
  assert.deepEqual(cursor.crossed(events, 2.4), [events[1]]);
  assert.deepEqual(cursor.crossed(events, 2.6), [events[2]]);
  assert.deepEqual(cursor.crossed(events, 0.5), [], 'backwards');
  cursor.reset();
  assert.deepEqual(cursor.crossed(events, 2.2), [], 'after a seek the first frame only sets the time');
  assert.deepEqual(cursor.crossed(events, 9), [events[2]], 'a long frame still fires what it crossed');
});

test('the pose layout the viewer is written for is the package\'s', () => {
  assert.deepEqual(sk.poseFields(), POSE_FIELDS);
});

test('lap events come from the race layer: standing lap 1, interpolated crossings, no lap for backing over the line', () => {
  const track = new sk.TrackView('brandwood');
  const L = track.length;
  // Eight numbers per car; only x and y matter to lap timing.
  const pose = (s) => {
    const i = track.points().length / 2;
    const xy = track.points();
    const d = track.distances();
    let k = 0;
    const w = ((s % L) + L) % L;
    while (k + 1 < i && d[k + 1] <= w) k++;
    const n = (k + 1) % i;
    const seg = (n === 0 ? L : d[n]) - d[k];
    const u = (w - d[k]) / seg;
    return [xy[2 * k] + u * (xy[2 * n] - xy[2 * k]), xy[2 * k + 1] + u * (xy[2 * n + 1] - xy[2 * k + 1]), 0, 0, 0, 0, 0, 0];
  };
  const poses = (...s) => new Float64Array(s.flatMap((v) => (Number.isNaN(v) ? [NaN, NaN, 0, 0, 0, 0, 0, 0] : pose(v))));
  // Two cars on the grid, 6 and 14 m behind the line, at 20 m/s.
  const laps = new RaceLaps(sk, track, poses(-6, -14));
  const events = [];
  let step = 0;
  const drive = (until, removedAt = Infinity) => {
    for (; step * 0.5 * 20 - 6 < until; ) {
      step += 1;
      const t = step * 0.5;
      const p0 = -6 + 20 * t;
      events.push(...laps.observe(step, t, poses(p0, t >= removedAt ? NaN : -14 + 20 * t)));
    }
  };
  drive(L + 20);
  assert.deepEqual(events.map((e) => [e.car, e.lap, e.valid]), [[0, 1, true], [1, 1, true]], JSON.stringify(events));
  // A standing lap runs from the start to the line at progress L.
  assert.ok(Math.abs(events[0].lapTime - (L + 6) / 20) < 1e-6, `${events[0].lapTime}`);
  assert.ok(Math.abs(events[1].lapTime - (L + 14) / 20) < 1e-6, `${events[1].lapTime}`);
  assert.ok(Math.abs(events[0].time - events[0].lapTime) < 1e-9, 'the lap began at the start');
  const sample = { distances: new Float64Array(2), progress: new Float64Array(2), order: new Float64Array(2), gaps: new Float64Array(2) };
  laps.sample(poses(0.5, NaN), sample, 0);
  const { distances: out, progress: raced } = sample;
  assert.ok(Math.abs(out[0] - 0.5) < 1e-6 && Number.isNaN(out[1]), `${out}`);
  // The race layer's progress after its last observation: past a lap.
  assert.ok(raced[0] > L && raced[0] === laps.timing.progress(0) && Number.isNaN(raced[1]), `${raced}`);
  // And its standings: car 0 leads (gap 0), car 1 a timing point behind.
  const standings = laps.timing.standings();
  assert.deepEqual(Array.from(sample.order), standings.map((s) => s.car));
  assert.deepEqual(Array.from(sample.gaps), [0, standings[1].gap]);
  // Car 1 leaves the race: it completes no lap.
  drive(2 * L + 1, step * 0.5);
  assert.deepEqual(events.map((e) => [e.car, e.lap]), [[0, 1], [1, 1], [0, 2]]);
  assert.ok(Math.abs(events[2].lapTime - L / 20) < 1e-6, 'a flying lap, line to line');
});

test('deep links: values the viewer cannot show fall back with a message each', () => {
  const cameras = ['chase', 'tv'];
  const speeds = [0.5, 1, 2];
  const meta = { cars: [{}, {}, {}], steps: 600, duration: 10 };

  const good = readLink('?car=2&cam=tv&speed=2&step=300');
  assert.deepEqual(good.problems, []);
  assert.deepEqual(checkSettings(good, cameras, speeds), { cam: 'tv', speed: 2, problems: [] });
  assert.deepEqual(checkPosition(good, meta), { car: 2, step: 300, t: null, clip: null, problems: [] });

  const bad = readLink('?car=42&cam=drone&speed=100&step=9000&t=abc');
  assert.deepEqual(bad.problems, ['t=abc is not a number: ignored']);
  const settings = checkSettings(bad, cameras, speeds);
  assert.equal(settings.cam, 'chase');
  assert.equal(settings.speed, 1);
  assert.match(settings.problems[0], /camera "drone" does not exist/);
  assert.match(settings.problems[1], /speed 100 is not offered \(0\.5, 1, 2\)/);
  const position = checkPosition(bad, meta);
  assert.equal(position.car, 0);
  assert.equal(position.step, 600);
  assert.match(position.problems[0], /car 42 is not in this race \(cars 0 to 2\)/);
  assert.match(position.problems[1], /step 9000 is past the end \(600\)/);

  // Fractional and negative cars are unknown; a time before the start is the start.
  assert.equal(checkPosition(readLink('?car=1.5'), meta).car, 0);
  assert.equal(checkPosition(readLink('?car=-1'), meta).car, 0);
  assert.equal(checkPosition(readLink('?t=-3'), meta).t, 0);
  // A live race has no end yet: its step and time are not clamped.
  assert.equal(checkPosition(readLink('?step=9000'), { cars: [{}], steps: null, duration: null }).step, 9000);
  // An empty value is not a number (Number('') would be 0).
  assert.deepEqual(readLink('?car=').problems, ['car= is not a number: ignored']);
});

test('the chart offers every channel of the package, by its group, once', () => {
  const names = sk.channelNames();
  const groups = groupChannels(names, sk.channelUnits(), sk.channelGroups());
  const listed = groups.flatMap((g) => g.channels.map((c) => c.name));
  assert.equal(listed.length, names.length);
  assert.deepEqual([...listed].sort(), [...names].sort());
  // Groups in the order they first appear, each listing its members in
  // channel order.
  assert.equal(groups[0].group, 'time');
  const wheel = groups.find((g) => g.group === 'wheel fl');
  assert.ok(wheel.channels.some((c) => c.name === 'wheel_fl_camber'));
  assert.ok(wheel.channels.every((c, k, all) => k === 0 || all[k - 1].index < c.index));
  assert.equal(new Set(groups.map((g) => g.group)).size, groups.length);
  // Every mode the chart draws is one it knows.
  assert.deepEqual(new Set(sk.channelInterpolations()), new Set(['lerp', 'lerpAngle', 'discrete']));
});

test('an angle wraps where the shorter way between two samples crosses ±π', () => {
  assert.deepEqual(angleWraps([3.0, 3.1, -3.1, -3.0, 0.0, 3.0]), [1]);
  assert.deepEqual(angleWraps([-3.1, 3.1]), [0]);
  // A fast turn that stays under π a sample is not a wrap, nor is a gap.
  assert.deepEqual(angleWraps([0, 3.0, NaN, -3.0]), []);
});

test('standings: the race layer\'s order and gaps, cars out of the race last, a lapped car said so', () => {
  // Three cars, two samples; the order and gaps are the race layer's
  // (recorded per sample by the worker), car 2 out of the race at sample 1.
  // Track 150 m long.
  const rec = {
    cars: 3,
    times: Float64Array.of(4, 16),
    raced: (i, car) => [[80, 76, 40], [320, 304, NaN]][i][car],
    orderAt: (i) => Float64Array.from([[0, 1, 2], [0, 1, 2]][i]),
    gap: (i, car) => [[0, 0.2, 4], [0, 0.8, NaN]][i][car],
  };
  const lapTimes = [[7.5, 15], [150 / 19], []];
  const rows = standingsAt(rec, 0, lapTimes, 150);
  assert.deepEqual(rows.map((r) => [r.car, r.position, r.laps]), [[0, 1, 0], [1, 2, 0], [2, 3, 0]]);
  assert.equal(rows[1].gap, 0.2);
  assert.equal(gapText(rows[1]), '+0.200');
  assert.equal(gapText(rows[0]), '');
  // Later: car 2 is out and listed last; car 0 has done two laps.
  const later = standingsAt(rec, 1, lapTimes, 150);
  assert.deepEqual(later.map((r) => [r.car, r.position, r.laps]), [[0, 1, 2], [1, 2, 1], [2, null, 0]]);
  assert.equal(gapText(later[2]), '');
  // A car the leader is a lap (150 m) or more ahead of says so.
  const slow = { ...rec, raced: (i, car) => [400, 190, NaN][car] };
  const lapped = standingsAt(slow, 1, lapTimes, 150);
  assert.equal(lapped[1].lapped, 1);
  assert.equal(gapText(lapped[1]), '+1 lap');
  // A car the race layer did not time is listed, out.
  const untimed = standingsAt({ ...rec, orderAt: () => Float64Array.of(1, 0, NaN) }, 0, lapTimes, 150);
  assert.deepEqual(untimed.map((r) => [r.car, r.position]), [[1, 1], [0, 2], [2, null]]);
});

test('laps on a distance axis: each lap from its line, another lap carried onto its distances', () => {
  // One car at 10 m/s on a 100 m track, sampled at 10 Hz from the line;
  // it stops for a second in lap 2 (distance not growing: skipped).
  const n = 251;
  const times = Float64Array.from({ length: n }, (_, i) => i / 10);
  const raced = (i) => {
    const t = times[i];
    return t < 15 ? 10 * t : t < 16 ? 150 : 10 * (t - 1);
  };
  const rec = { count: n, times, raced: (i) => raced(i), sampleAt: (t) => Math.min(n - 1, Math.floor(t * 10 + 1e-9)) };
  const lap2 = { lap: 2, time: 21, lapTime: 11 };
  const samples = lapSamples(rec, 0, lap2, 100);
  assert.equal(samples.x[0], 0);
  assert.equal(samples.x.at(-1), 100);
  assert.ok(samples.x.every((x, k) => k === 0 || x > samples.x[k - 1]), 'distances grow');
  assert.equal(samples.times[samples.x.indexOf(50)], 15, 'the first pass at the stop');
  assert.equal(timeAtDistance(samples, 75), 18.5);
  assert.equal(timeAtDistance(samples, 150), null);
  // Carried onto other distances: interpolated, held, or the short way
  // round an angle; nothing outside the other lap.
  assert.deepEqual(atDistances([0, 10, 20], [0, 1, 3], [-1, 0, 5, 15, 20, 21]), [null, 0, 0.5, 2, 3, null]);
  assert.deepEqual(atDistances([0, 10], [2, 3], [5], 'discrete'), [2]);
  const angle = atDistances([0, 10], [3.0, -3.0], [5], 'lerpAngle')[0];
  assert.ok(Math.abs(Math.abs(angle) - (3.0 + (2 * Math.PI - 6) / 2)) < 1e-12, `${angle}`);
});

test('a clip link: clip=A-B marks steps A to B when they are a stretch of the recording', () => {
  const meta = { cars: [{}], steps: 1000, duration: 1000 / 60 };
  const link = readLink('?clip=600-720');
  assert.deepEqual(link.clip, [600, 720]);
  assert.deepEqual(checkPosition(link, meta).clip, [600, 720]);
  for (const [text, message] of [['720-600', /not a stretch/], ['0-5000', /not a stretch/], ['abc', /not a range of steps/]]) {
    const bad = readLink(`?clip=${text}`);
    const position = checkPosition(bad, meta);
    assert.equal(position.clip, null, text);
    assert.match([...bad.problems, ...position.problems].join(' '), message, text);
  }
});

test('calibration: the axes moved and buttons pressed make the profile', async () => {
  const { Calibration } = await import('../src/calibration.mjs');
  const c = new Calibration(sk.AxisFinder);
  const pad = (axes, pressed = []) => ({ axes: Float64Array.from(axes), buttons: Uint8Array.from({ length: 8 }, (_, i) => (pressed.includes(i) ? 1 : 0)) });
  assert.equal(c.ready(), false);
  c.frame(pad([0, 0.01, 1, 1]));
  c.next();
  assert.equal(c.current.id, 'steer');
  assert.throws(() => c.next(true), /cannot be skipped/);
  assert.throws(() => c.next(), /nothing found yet/);
  for (const v of [-0.3, -0.9, 0.8, 0]) c.frame(pad([v, 0.01, 1, 1]));
  c.next();
  // The steering axis is taken: moving it again does not find it.
  assert.equal(c.frame(pad([0.9, 0.01, 1, 1])), null);
  for (const v of [0, -1, 1]) c.frame(pad([0, 0.01, v, 1]));
  c.next();
  for (const v of [-0.7, 1]) c.frame(pad([0, 0.01, 1, v]));
  c.next();
  c.frame(pad([0, 0, 1, 1], [3])); // held when the step began: not a press
  c.frame(pad([0, 0, 1, 1]));
  assert.equal(c.frame(pad([0, 0, 1, 1], [5])), 'button 5');
  c.next();
  c.frame(pad([0, 0, 1, 1], [5]));
  assert.equal(c.frame(pad([0, 0, 1, 1], [5, 4])), 'button 4', 'a taken button is not found again');
  c.next();
  c.next(true);
  assert.equal(c.current.id, 'finish');
  const json = c.profile({ name: 'w', deadZone: 0.03, exponent: 2 });
  const profile = JSON.parse(sk.DeviceProfile.fromJson(json).toJson());
  assert.deepEqual(profile.steer.travel, { left: -0.9, rest: 0, right: 0.8 });
  assert.equal(profile.steer.response.exponent, 2);
  assert.deepEqual(profile.pedals.split.throttle, { axis: 2, travel: { rest: 1, pressed: -1 }, response: profile.pedals.split.throttle.response });
  assert.deepEqual(profile.pedals.split.brake.travel, { rest: 1, pressed: -0.7 });
  assert.deepEqual([profile.buttons.shift_up, profile.buttons.shift_down, profile.buttons.handbrake], [5, 4, null]);
});

test('calibration: skipping the accelerator leaves the pedals out', async () => {
  const { Calibration } = await import('../src/calibration.mjs');
  const c = new Calibration(sk.AxisFinder);
  const pad = (axes) => ({ axes: Float64Array.from(axes), buttons: new Uint8Array(4) });
  c.frame(pad([0, 0]));
  c.next();
  for (const v of [-1, 1]) c.frame(pad([v, 0]));
  c.next();
  c.next(true);
  assert.equal(c.current.id, 'shift_up', 'no brake step without an accelerator');
  const profile = JSON.parse(c.profile({ name: 'stick' }));
  assert.equal(profile.pedals, undefined);
  assert.equal(profile.steer.axis, 0);
});

test('WebHID wheel: level bytes and reports of the classic Logitech protocol', async () => {
  const { HidWheel, forceReport, levelByte } = await import('../src/wheel_hid.mjs');
  assert.equal(levelByte(0), 0x80);
  assert.equal(levelByte(1), 0xff);
  assert.equal(levelByte(-1), 0x01);
  assert.equal(levelByte(0.4), 0x80 + 51);
  assert.equal(levelByte(0.4, true), 0x80 - 51);
  assert.equal(levelByte(Number.NaN), 0x80, 'NaN is no force');
  assert.equal(levelByte(7), 0xff);
  assert.deepEqual(forceReport(0.003), [0x13, 0, 0, 0, 0, 0, 0], 'a level that rounds to none stops the slot');
  assert.deepEqual(forceReport(-0.2), [0x11, 0x08, 0x80 - 25, 0x80, 0, 0, 0]);
  const sent = [];
  const device = { productId: 0xc29b, opened: false, async open() { this.opened = true; }, async sendReport(id, data) { sent.push([id, ...data]); } };
  let asked = null;
  const wheel = new HidWheel({ async requestDevice(options) { asked = options; return [device]; } });
  assert.equal(await wheel.connect(), 'G27');
  assert.ok(asked.filters.every((f) => f.vendorId === 0x046d));
  assert.ok(device.opened);
  wheel.play(0.2);
  wheel.play(0.2); // unchanged level: nothing sent
  wheel.stop();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(sent, [[0, 0xf5, 0, 0, 0, 0, 0, 0], [0, 0x13, 0, 0, 0, 0, 0, 0], [0, 0x11, 0x08, 0x80 + 25, 0x80, 0, 0, 0], [0, 0x13, 0, 0, 0, 0, 0, 0]]);
  device.sendReport = async () => {
    throw new Error('device unplugged');
  };
  wheel.play(0.3);
  await new Promise((r) => setTimeout(r, 0));
  assert.match(wheel.error, /device unplugged/);
  wheel.play(0.1); // no device any more: nothing thrown
  const none = new HidWheel({ async requestDevice() { return []; } });
  assert.equal(await none.connect(), null, 'the player picked nothing');
});

test('the race page files a misprediction by the nearest car at its tick', async () => {
  const { MissLog, CONTACT_RANGE_M } = await import('../src/net_misses.mjs');
  const car = (id, x, y) => ({ id, row: { x, y, z: 0 } });
  const log = new MissLog(1);
  const miss = { tick: 40, fields: [{ field: 'x', server: 1, predicted: 2 }] };
  log.miss(miss, { blocks: { cars: [car(0, 100, 0), car(1, 0, 0), car(2, 3, 4)] } });
  assert.deepEqual([log.explained, log.unexplained], [1, 0]);
  // The car 5 m away is gone (null row): the one left is 100 m away.
  log.miss(miss, { blocks: { cars: [car(0, 100, 0), car(1, 0, 0), { id: 2, row: null }] } });
  assert.deepEqual(log.lastUnexplained, { tick: 40, fields: ['x'], nearest: { seat: 0, distance: 100 } });
  log.miss(miss, { blocks: { cars: [car(1, 0, 0), car(2, CONTACT_RANGE_M + 0.01, 0)] } });
  assert.equal(log.unexplained, 2);
  log.frame({ blocks: { contact: [{ a: 0, b: 2 }, { a: 2, b: 1 }, { a: 1, b: 0 }] } });
  assert.deepEqual(log.summary(), { explained: 1, unexplained: 2, contacts: 2, lastUnexplained: log.lastUnexplained });
});

test('events in words: a reset says which car and that its lap does not count', () => {
  assert.equal(describeEvent({ kind: 'reset', car: 2, step: 700, time: 11.7 }), 'car 2 put back on the track (reset: its lap does not count)');
  assert.equal(describeEvent({ kind: 'overtake', cars: [1, 0] }), 'car 1 passes car 0');
  assert.equal(describeEvent({ kind: 'slide', cars: [2], angle: 0.4 }), 'car 2 slides, 23° of body slip');
  assert.equal(describeEvent({ kind: 'contact', cars: [3, 'ground'], impulse: 812.4 }), 'car 3 hit the ground, 812 N·s');
});

test('standings: a lap is void by a reset from the reset to the next lap line', () => {
  const resets = [12.5, 80];
  const laps = [30, 70, 110];
  assert.equal(resetThisLap(resets, laps, 10), false, 'before the reset');
  assert.equal(resetThisLap(resets, laps, 12.5), true, 'at the reset, on lap 1');
  assert.equal(resetThisLap(resets, laps, 29.9), true);
  assert.equal(resetThisLap(resets, laps, 30), false, 'lap 2 starts clean');
  assert.equal(resetThisLap(resets, laps, 79), false);
  assert.equal(resetThisLap(resets, laps, 95), true, 'the second reset voids lap 3');
  assert.equal(resetThisLap(resets, laps, 110), false);
  assert.equal(resetThisLap([], laps, 50), false, 'never reset');
});

test('drivers: names from the replay\'s drivers metadata label the cars; a bad value labels none', () => {
  const cars = [{ name: 'rwd_sports' }, { name: 'fwd_hatchback' }, { name: 'kart' }];
  const named = withDrivers(cars, { drivers: '["ann","",7]' });
  assert.deepEqual(named.map((c) => c.driver), ['ann', '', ''], 'a name, an empty one, a number');
  assert.equal(carTitle(named[0], 0), '0: ann (rwd_sports)');
  assert.equal(carTitle(named[1], 1), '1: fwd_hatchback');
  assert.equal(named[0].name, 'rwd_sports', 'the description is kept');
  for (const metadata of [{}, { drivers: 'not json' }, { drivers: '{"0":"ann"}' }, undefined]) {
    assert.deepEqual(withDrivers(cars, metadata).map((c) => c.driver), ['', '', ''], JSON.stringify(metadata));
  }
  assert.equal(withDrivers(cars, { drivers: JSON.stringify(['x'.repeat(100)]) })[0].driver.length, 32, 'cut to 32 characters');
});

test('race entry: the desk sits beside the race\'s WebSocket, and the file is named after its driver', () => {
  assert.equal(entryUrl('ws://127.0.0.1:8790/race'), 'http://127.0.0.1:8790/entry');
  assert.equal(entryUrl('wss://example.org/league/race?x=1#y'), 'https://example.org/league/entry');
  assert.equal(entryFileName({ driver: 'ann', car: 1 }), 'ann-car1.skr');
  // A name is the driver's to choose: nothing in it reaches a path.
  assert.equal(entryFileName({ driver: '../a b', car: 2 }), '___a_b-car2.skr');
  assert.equal(entryFileName({ driver: null, car: 0 }), 'driver-car0.skr');
  // The server percent-encodes the name's UTF-8 (netplay/FORMAT.md).
  assert.equal(decodeDriver('J%C3%BCrgen%20K'), 'Jürgen K');
  assert.equal(decodeDriver('ann'), 'ann');
  assert.equal(decodeDriver('%E0%A4%A'), '%E0%A4%A', 'a malformed escape is shown as it came');
  assert.equal(decodeDriver(null), null);
});

test('an invalid lap says why wherever it is shown', () => {
  assert.equal(invalidity({ valid: true, faults: [] }), '');
  const lost = { valid: false, faults: ['left the track at t = 63.333 s (7.1 m from the centre line, limit 7.0 m)', 'was reset onto the track at t = 70.000 s'] };
  assert.equal(invalidity(lost), ' (invalid: left the track at t = 63.333 s (7.1 m from the centre line, limit 7.0 m); was reset onto the track at t = 70.000 s)');
  // An archived core's laps come without reasons.
  assert.equal(invalidity({ valid: false }), ' (invalid)');
  const event = { kind: 'lap', car: 1, lap: 2, step: 600, time: 10, lapTime: 61.5, valid: false, faults: lost.faults.slice(0, 1) };
  assert.match(describeEvent(event), /^car 1: lap 2 completed in 61\.500 s \(invalid: left the track at t = 63\.333 s/);
});
