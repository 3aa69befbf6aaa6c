// The play page's devices in headless Chromium, against the real
// leaderboard binary serving the page:
//
// 1. a wheel (a scripted Gamepad source without the standard mapping,
//    as browsers report wheels) is calibrated through the page's own
//    screen with real clicks; the profile it saves has the axes, travels
//    and buttons the wheel was moved through, survives a reload, and
//    drives the car exactly as the npm package computes for its
//    readings; its paddles shift a sequential gearbox;
// 2. the wheel's motor over WebHID (a scripted `navigator.hid` device
//    that records the reports): centring spring off, constant forces
//    that follow the force-feedback stage, a stop when the wheel runs
//    away (latched until the page's rearm button) and when the physics
//    stops;
// 3. the physics keeps its fixed rate whatever the page draws: the same
//    step-indexed keys (H-pattern gates among them) give the same replay
//    bytes drawn at the display's rate and throttled to 20 fps.

import assert from 'node:assert/strict';
import { ok } from './harness.mjs';
import { openPlay } from './play_checks.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

/** Runs in the page before its scripts: a wheel whose readings the test
 * sets (`window.__wheel`) and a WebHID with one Logitech G29 whose
 * output reports are kept (`window.__hidReports`). */
function scriptedWheel() {
  const buttons = Array.from({ length: 24 }, () => ({ pressed: false, value: 0 }));
  /** @type {any} */ (window).__wheel = { id: 'scripted wheel', mapping: '', axes: [0.02, 0, 1, 1, 0, 0], buttons };
  const reports = [];
  /** @type {any} */ (window).__hidReports = reports;
  const device = {
    vendorId: 0x046d, productId: 0xc24f, productName: 'scripted G29', opened: false,
    async open() { this.opened = true; },
    async sendReport(id, data) { reports.push([id, ...data]); },
  };
  Object.defineProperty(navigator, 'hid', {
    value: { async requestDevice({ filters }) { return filters.some((f) => f.productId === 0xc24f) ? [device] : []; } },
  });
}

/** Sets the scripted wheel's axes (by index) and buttons held. */
async function setWheel(page, axes = {}, held = []) {
  await page.evaluate(({ axes, held }) => {
    const wheel = /** @type {any} */ (window).__wheel;
    for (const [i, v] of Object.entries(axes)) wheel.axes[Number(i)] = v;
    wheel.buttons.forEach((b, i) => {
      b.pressed = held.includes(i);
      b.value = b.pressed ? 1 : 0;
    });
  }, { axes, held });
  await frames(page);
}

/** Waits until the page has drawn at least one whole display frame after
 * now (its own frame callback, registered before ours, runs first), so it
 * has read what the test just set, however slow the machine draws. */
async function frames(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined)))));
}

const text = (page, selector) => page.$eval(selector, (e) => e.textContent);
const shown = (page) => page.evaluate(() => window.skidpadPlay.shown());

async function calibrate(page) {
  await page.evaluate(() => window.skidpadPlay.setGamepadSource(() => [/** @type {any} */ (window).__wheel]));
  await page.click('#calibrate');
  const next = async () => {
    await page.waitForFunction(() => !document.querySelector('#cal-next').disabled, undefined, { timeout: 10_000 });
    await page.click('#cal-next');
  };
  await next(); // at rest
  for (const v of [-0.95, 0.97, 0.02]) await setWheel(page, { 0: v });
  assert.match(await text(page, '#cal-found'), /axis 0: left -0.95, rest 0.02, right 0.97/);
  await next();
  for (const v of [-1, 1]) await setWheel(page, { 2: v });
  await next();
  for (const v of [-0.98, 1]) await setWheel(page, { 3: v });
  await next();
  for (const [button] of [[5], [4]]) {
    // The step's first frame takes the buttons as they are (a held one is
    // no press), so press only after it.
    await frames(page);
    await setWheel(page, {}, [button]);
    await setWheel(page, {}, []);
    assert.equal(await text(page, '#cal-found'), `button ${button}`);
    await next();
  }
  await page.click('#cal-skip'); // no handbrake button
  await page.fill('#cal-name', 'test wheel');
  await page.fill('#cal-dead-zone', '0.05');
  await page.fill('#cal-exponent', '1.5');
  await next(); // save
  await page.waitForFunction(() => document.querySelector('#calibration').hidden, undefined, { timeout: 5_000 });
}

export async function checkDevices(browser, base) {
  let { page } = await openPlay(browser.context, base, '', scriptedWheel);
  await calibrate(page);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#profile').options.length > 1, undefined, { timeout: 60_000 });
  assert.equal(await page.$eval('#profile', (e) => e.value), 'test wheel', 'the saved profile is chosen after a reload');
  const json = await page.evaluate(() => localStorage.getItem('skidpad.profiles'));
  const saved = JSON.parse(JSON.parse(json)[0]);
  assert.deepEqual(saved.steer, { axis: 0, travel: { left: -0.95, rest: 0.02, right: 0.97 }, response: { dead_zone: 0.05, outer_dead_zone: 0, exponent: 1.5, saturation: 1, invert: false } });
  assert.deepEqual(saved.pedals.split.throttle.travel, { rest: 1, pressed: -1 });
  assert.deepEqual([saved.pedals.split.throttle.axis, saved.pedals.split.brake.axis], [2, 3]);
  assert.deepEqual(saved.pedals.split.brake.travel, { rest: 1, pressed: -0.98 });
  assert.deepEqual([saved.buttons.shift_up, saved.buttons.shift_down, saved.buttons.handbrake], [5, 4, null]);
  ok('devices: a wheel calibrated through the page (steer axis 0 from -0.95 to 0.97, pedals on axes 2 and 3, paddles 5 and 4) is saved and chosen again after a reload');

  await page.evaluate(() => window.skidpadPlay.setGamepadSource(() => [/** @type {any} */ (window).__wheel]));
  await page.selectOption('#gears', 'sequential');
  await page.click('#connect-wheel');
  const reports = () => page.evaluate(() => /** @type {any} */ (window).__hidReports);
  await page.waitForFunction(() => /** @type {any} */ (window).__hidReports.length >= 2, undefined, { timeout: 5_000 });
  assert.deepEqual((await reports()).slice(0, 2), [[0, 0xf5, 0, 0, 0, 0, 0, 0], [0, 0x13, 0, 0, 0, 0, 0, 0]], 'centring spring off, then no force');

  // Half throttle, a little right steer; sequential: neutral until the
  // shift-up paddle is pulled, twice.
  const axes = { 0: 0.3, 2: 0, 3: 1 };
  await setWheel(page, axes);
  await page.click('#start');
  await page.waitForFunction(() => (window.skidpadPlay.shown().step ?? 0) > 30, undefined, { timeout: 30_000 });
  assert.equal((await shown(page)).hud.gear, 0, 'sequential starts in neutral');
  for (const gear of [1, 2]) {
    // Held for a few physics steps, as a finger on a paddle is.
    await setWheel(page, axes, [5]);
    await page.waitForTimeout(150);
    await setWheel(page, axes, []);
    await page.waitForFunction((g) => window.skidpadPlay.shown().hud.gear === g, gear, { timeout: 10_000 });
  }
  const state = await shown(page);
  const reading = new Float64Array(8);
  Object.entries(axes).forEach(([i, v]) => (reading[Number(i)] = v));
  const profile = sk.DeviceProfile.fromJson(JSON.stringify(saved));
  const expected = sk.carInputFrom(profile.controls(reading, new Uint8Array(24)), 2, 6);
  assert.equal(state.hud.steer, expected.steer, 'steer through the calibrated travel, dead zone and curve');
  assert.equal(state.hud.throttle, expected.throttle, 'throttle from the calibrated pedal');
  ok(`devices: the calibrated wheel drives steer ${expected.steer.toFixed(4)}, throttle ${expected.throttle.toFixed(4)} as the profile says, and its paddle shifts a sequential box to gear 2`);

  // The motor: forces follow the stage's output, within its 0.4 cap.
  await page.waitForFunction(() => Math.abs(window.skidpadPlay.shown().feedback ?? 0) > 0.05, undefined, { timeout: 20_000 });
  const forces = (await reports()).filter((r) => r[1] === 0x11);
  assert.ok(forces.length > 0, 'constant-force reports sent');
  assert.ok(forces.every((r) => r[2] === 0x08 && r[4] === 0x80 && Math.abs(r[3] - 0x80) <= Math.round(0.4 * 127)), `levels within the cap: ${JSON.stringify(forces.slice(-3))}`);
  const before = await shown(page);
  const last = (await reports()).at(-1);
  assert.ok(Math.abs(last[3] - (0x80 + Math.round(before.feedback * 127))) <= 3, `the last level ${last[3]} follows the output ${before.feedback}`);

  // A runaway: the wheel swings lock to lock frame after frame.
  for (let k = 0; k < 12; k++) {
    await page.evaluate((v) => (/** @type {any} */ (window).__wheel.axes[0] = v), k % 2 ? 0.9 : -0.9);
    await page.waitForTimeout(30);
  }
  await setWheel(page, axes);
  const latched = await shown(page);
  assert.equal(latched.silenced, 'runaway', 'latched on a runaway');
  assert.equal(latched.feedback, 0);
  assert.deepEqual((await reports()).at(-1), [0, 0x13, 0, 0, 0, 0, 0, 0], 'the motor stopped');
  assert.equal(await page.$eval('#rearm', (e) => e.hidden), false, 'the page offers to rearm');
  await page.waitForTimeout(500);
  assert.equal((await shown(page)).silenced, 'runaway', 'the latch holds with the wheel still');
  await page.click('#rearm');
  await page.waitForFunction(() => Math.abs(window.skidpadPlay.shown().feedback ?? 0) > 0.05, undefined, { timeout: 10_000 });
  ok(`devices: WebHID reports follow the force feedback (${forces.length} levels, last ${last[3]} for output ${before.feedback.toFixed(3)}); a runaway latched the motor off until rearmed`);

  await page.click('#finish');
  await page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 30_000 });
  await page.waitForTimeout(600);
  assert.equal((await shown(page)).silenced, 'stalled');
  assert.deepEqual((await reports()).at(-1), [0, 0x13, 0, 0, 0, 0, 0, 0], 'the motor stopped with the physics');
  // Leave the browser as the other checks expect it: the standard profile.
  await page.click('#remove-profile');
  assert.equal(await page.$eval('#profile', (e) => e.value), 'standard gamepad');
  await page.close();
  ok('devices: the motor stops when the physics stops; the test wheel profile removed through the page');
}

/** The same keys per step, drawn at the display's rate and at 20 fps. */
export async function checkFixedRate(browser, base) {
  const script = [];
  for (let k = 0; k < 480; k++) {
    script.push({ throttle: k < 400, brake: k >= 400, right: k >= 200 && k < 260, gate: k < 90 ? 1 : k < 300 ? 2 : 3 });
  }
  const runs = [];
  for (const fps of [null, 20]) {
    const { page } = await openPlay(browser.context, base, `&gears=h_pattern${fps ? `&fps=${fps}` : ''}`);
    await page.evaluate((s) => window.skidpadPlay.startScripted(s), script);
    await page.waitForFunction(() => window.skidpadPlay.shown().replayDigest !== undefined, undefined, { timeout: 60_000 });
    const state = await shown(page);
    const times = [...state.frameTimes].sort((a, b) => a - b);
    runs.push({ fps, digest: state.replayDigest, bytes: state.replayBytes, gear: state.hud.gear, frameMs: times[Math.floor(times.length / 2)] });
    await page.close();
  }
  const [free, capped] = runs;
  assert.equal(capped.digest, free.digest, `same replay at 20 fps: ${JSON.stringify(runs)}`);
  assert.ok(capped.frameMs >= 45, `drawn at 20 fps or slower: ${capped.frameMs} ms a frame`);
  assert.equal(free.gear, 3, 'the H-pattern gate 3 engaged');
  ok(`fixed rate: 480 scripted steps give the same ${free.bytes}-byte replay drawn every ${free.frameMs.toFixed(1)} ms and every ${capped.frameMs.toFixed(1)} ms (20 fps cap); H-pattern gates 1-2-3 engaged`);
}
