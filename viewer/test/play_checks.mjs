// The play page in headless Chromium against the real leaderboard binary
// (`skidpad-leaderboard --play` on SQLite), driven only through real
// keyboard events and a scripted gamepad source:
//
// 1. a scripted driver holds and releases arrow keys, looking at what the
//    page shows (the car's pose, its steer), and completes a lap on
//    brandwood; the page records the run, submits it from its own button,
//    and the leaderboard's re-simulated lap equals the page's to the
//    millisecond, with a rank;
// 2. the best lap became a ghost (IndexedDB): the next session loads it
//    and shows the gap to it;
//    force feedback plays while driving and is silenced once the physics
//    stops;
//    "drive from here" takes the ranked run over at 10 s, and the
//    leaderboard refuses the taken-over run; holding Backspace rewinds a
//    run, which the leaderboard verifies and does not rank;
// 3. a scripted gamepad (the standard profile's dead zone and curve)
//    drives exactly the CarInput the npm package computes for its
//    readings.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startServer } from './browser.mjs';
import { ok, root } from './harness.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

const leaderboardBin = process.env.SKIDPAD_LEADERBOARD_BIN ?? join(root, 'target/debug/skidpad-leaderboard');
const TRACK = 'brandwood';
const CAR = 'rwd_sports';

/** The leaderboard with the web app, on a fresh SQLite file. */
export async function leaderboard(extraArgs = []) {
  const db = join(mkdtempSync(join(tmpdir(), 'skidpad-play-')), 'board.db');
  const server = await startServer(leaderboardBin, ['--play', '--listen', '127.0.0.1:0', '--database', `sqlite:${db}`, '--workers', '1', ...extraArgs], {
    SKIDPAD_VIEWER_ROOT: root,
  });
  server.url = server.url.replace('listening on ', '');
  return server;
}

/** The centre line's point `ahead` metres past distance `s`. */
function pointAt(track, s) {
  const d = track.distances();
  const p = track.points();
  const n = d.length;
  const at = ((s % track.length) + track.length) % track.length;
  let i = 0;
  while (i + 1 < n && d[i + 1] <= at) i++;
  const j = (i + 1) % n;
  const len = (j === 0 ? track.length : d[j]) - d[i];
  const t = (at - d[i]) / len;
  return [p[2 * i] + (p[2 * j] - p[2 * i]) * t, p[2 * i + 1] + (p[2 * j + 1] - p[2 * i + 1]) * t];
}

/** Curvature at each polyline point (turn angle over the mean segment). */
function curvatures(track) {
  const p = track.points();
  const n = p.length / 2;
  const k = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = (i + n - 1) % n;
    const b = (i + 1) % n;
    const h1 = Math.atan2(p[2 * i + 1] - p[2 * a + 1], p[2 * i] - p[2 * a]);
    const h2 = Math.atan2(p[2 * b + 1] - p[2 * i + 1], p[2 * b] - p[2 * i]);
    let turn = h2 - h1;
    while (turn > Math.PI) turn -= 2 * Math.PI;
    while (turn < -Math.PI) turn += 2 * Math.PI;
    const len = (Math.hypot(p[2 * i] - p[2 * a], p[2 * i + 1] - p[2 * a + 1]) + Math.hypot(p[2 * b] - p[2 * i], p[2 * b + 1] - p[2 * i + 1])) / 2;
    k[i] = turn / len;
  }
  return k;
}

/** The keys a player holds for pose `pose` and steer input `steer`: the
 * Rust keyboard test's player (pure pursuit, corner speeds from the
 * curvature ahead), acting only through keys. `pace` scales its corner
 * speeds (1: the full pace); a `gentle` driver also lifts off the
 * throttle while steering hard, as a player nursing a rear-wheel-drive
 * car through a slide would. */
function keysFor(track, kappa, pose, steer, { pace = 1, gentle = false } = {}) {
  const [x, y, , yaw, , , , speed] = pose;
  const [distance] = track.locate(x, y);
  const [tx, ty] = pointAt(track, distance + 8 + 0.7 * speed);
  const dx = tx - x;
  const dy = ty - y;
  const dist = Math.hypot(dx, dy);
  const sinAlpha = (Math.cos(yaw) * dy - Math.sin(yaw) * dx) / dist;
  const wheelbase = 2.6;
  const maxAngle = 0.55;
  const wanted = Math.max(-1, Math.min(1, -Math.atan((wheelbase * 2 * sinAlpha) / dist) / maxAngle));
  const d = track.distances();
  const window = 20 + (speed * speed) / 12;
  let safe = Infinity;
  for (let i = 0; i < d.length; i++) {
    const gap = (((d[i] - distance) % track.length) + track.length) % track.length;
    if (gap > window) continue;
    const corner = Math.sqrt(3.5 / Math.max(Math.abs(kappa[i]), 1e-4));
    safe = Math.min(safe, Math.sqrt(corner * corner + 2 * 5 * gap));
  }
  safe *= pace;
  return {
    ArrowLeft: wanted < 0 && steer > wanted - 0.03,
    ArrowRight: wanted > 0 && steer < wanted + 0.03,
    ArrowUp: speed < safe - 0.5 && !(gentle && speed > 10 && Math.abs(steer) > 0.15),
    ArrowDown: speed > safe + 1,
  };
}

/** Opens the play page; `init` (a function) runs in the page before its
 * own scripts (a test's scripted devices). */
export async function openPlay(context, base, query = '', init = null) {
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  // A small view: SwiftShader draws on the same two cores that run the
  // physics worker and answer the driver.
  await page.setViewportSize({ width: 480, height: 320 });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
  await page.goto(`${base}/play?track=${TRACK}&car=${CAR}&countdown=1${query}`);
  await page.waitForFunction(() => document.querySelector('#track').options.length > 0, undefined, { timeout: 60_000 });
  return { page, logs };
}

const shown = (page) => page.evaluate(() => window.skidpadPlay.shown());

/** Drives until a valid lap is done, or `laps` laps, or the time runs
 * out, pressing and releasing keys as `keysFor` says. `api` is the page's
 * test handle (`skidpadPlay`, or `skidpadRace` on the online race page,
 * which counts laps without validity). `pace` scales the driver's corner
 * speeds and `gentle` lifts while steering hard (see `keysFor`);
 * `keepDriving(state)`, asked at each glance, keeps a driver who has done
 * its laps on the move while it returns true (a car that stops past the
 * line becomes a wall for the one still racing). A car standing still for
 * 3 s (against a barrier, say) backs away for 2.5 s in reverse (Q, then
 * E back to drive), steering the other way, as a player would; one the
 * race page says is held on the grid (`held`) waits for the start. */
export async function drive(page, laps, seconds, api = 'skidpadPlay', { pace = 1, gentle = false, keepDriving = () => false, name = '' } = {}) {
  const track = new sk.TrackView(TRACK);
  const kappa = curvatures(track);
  const held = new Set();
  const deadline = Date.now() + seconds * 1000;
  const glance = () => page.evaluate((name) => window[name].glance(), api);
  // The play page stops at the first valid lap; the race page at `laps`.
  const validLap = () => api === 'skidpadPlay' && page.evaluate(() => window.skidpadPlay.shown().laps.some((l) => l.valid));
  let state = await glance();
  let looks = 0;
  const began = Date.now();
  let lapsSeen = 0;
  let strongestFeedback = 0;
  let stoppedSince = null;
  let reversingUntil = null;
  // On the race page a car that has not got 15 m from where it was for
  // 15 s (wedged, or backing out and in again) is put back on the track
  // with the reset key (T), as a person would; a CI run saw bob, touched by
  // another car, spend his 300 s without a lap.
  let anchor = null;
  let resets = 0;
  const tap = async (key) => {
    await page.keyboard.down(key);
    await page.keyboard.up(key);
  };
  while (Date.now() < deadline) {
    // Asked at every glance, so it also hears of laps before they are done.
    const more = keepDriving(state);
    if (state.laps >= laps && !more) break;
    looks += 1;
    strongestFeedback = Math.max(strongestFeedback, Math.abs(state.feedback ?? 0));
    if (state.laps > lapsSeen) {
      lapsSeen = state.laps;
      if (await validLap()) break;
    }
    if (state.pose && state.steer !== undefined) {
      const now = Date.now();
      const want = keysFor(track, kappa, state.pose, state.steer, { pace, gentle });
      if (reversingUntil !== null && now >= reversingUntil) {
        reversingUntil = null;
        stoppedSince = null;
        await tap('KeyE');
      } else if (reversingUntil === null) {
        // A car held on the grid before the start is waiting, not stuck.
        stoppedSince = state.pose[7] < 0.5 && !state.held ? (stoppedSince ?? now) : null;
        if (stoppedSince !== null && now - stoppedSince > 3000) {
          reversingUntil = now + 2500;
          await tap('KeyQ');
        }
      }
      if (reversingUntil !== null) {
        Object.assign(want, { ArrowUp: true, ArrowDown: false, ArrowLeft: want.ArrowRight, ArrowRight: want.ArrowLeft });
      }
      if (api === 'skidpadRace') {
        const [x, y] = state.pose;
        if (anchor === null || state.held || Math.hypot(x - anchor.x, y - anchor.y) > 15) {
          anchor = { at: now, x, y };
        } else if (now - anchor.at > 15_000) {
          await tap('KeyT');
          resets += 1;
          anchor = null;
          reversingUntil = null;
          stoppedSince = null;
        }
      }
      for (const [key, down] of Object.entries(want)) {
        if (down && !held.has(key)) {
          await page.keyboard.down(key);
          held.add(key);
        } else if (!down && held.has(key)) {
          await page.keyboard.up(key);
          held.delete(key);
        }
      }
    }
    state = await glance();
    if (process.env.PLAY_TRACE && state.pose && looks % 20 === 0) {
      const [d, off] = track.locate(state.pose[0], state.pose[1]);
      console.log(`${name} pose ${state.pose.map((v) => v.toFixed(2)).join(',')} step ${state.step} d ${d.toFixed(1)} off ${off.toFixed(2)} v ${state.pose[7].toFixed(1)} steer ${state.steer.toFixed(2)} keys ${[...held].join(',')} looks/s ${(looks / ((Date.now() - began) / 1000)).toFixed(1)}`);
    }
  }
  for (const key of held) await page.keyboard.up(key);
  const last = await page.evaluate((name) => window[name].shown(), api);
  return { looks: looks / ((Date.now() - began) / 1000), strongestFeedback, resets, ...last };
}

/** `base`: the leaderboard serving the page (`leaderboard()`). */
export async function checkPlay(browser, base) {
  const { page, logs } = await openPlay(browser.context, base);
  await page.click('#start');
  await page.waitForFunction(() => window.skidpadPlay.shown().state === 'driving', undefined, { timeout: 30_000 });
  // A clean lap within two (a keyboard player may cut a kerb).
  const state = await drive(page, 2, 200);
  const lap = state.laps.find((l) => l.valid);
  assert.ok(lap, `a clean lap within two: ${JSON.stringify(state.laps)} (logs: ${logs.join(' | ')})`);
  await reportPerformance(page);
  await page.click('#finish');
  await page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 30_000 });
  // The physics has stopped: past the stall timeout (0.25 s) the force
  // feedback stage has silenced the output it played while driving.
  assert.ok(state.strongestFeedback > 0.1, `force feedback played while driving (${state.strongestFeedback})`);
  await page.waitForTimeout(600);
  assert.equal((await shown(page)).feedback, 0, 'force feedback silenced once the physics stopped');
  await page.click('#submit');
  await page.waitForFunction(() => window.skidpadPlay.shown().verdict !== null, undefined, { timeout: 120_000 });
  const { verdict } = await shown(page);
  assert.equal(verdict.status, 'verified', JSON.stringify(verdict));
  assert.equal(Math.round(verdict.bestLap * 1000), Math.round(lap.time * 1000), `leaderboard ${verdict.bestLap} vs page ${lap.time}`);
  assert.equal(verdict.rank, 1);
  ok(`play: a keyboard lap of ${TRACK} in ${lap.time.toFixed(3)} s (lap ${lap.lap}, driver looking ${state.looks.toFixed(0)} times a second), verified by the leaderboard at ${verdict.bestLap.toFixed(3)} s, rank ${verdict.rank}`);
  await page.close();
  await checkTakeOver(browser, base, verdict.id);

  // The next session races that lap as a ghost.
  const again = await openPlay(browser.context, base);
  await again.page.click('#start');
  await again.page.waitForFunction(() => window.skidpadPlay.shown().ghostBest != null, undefined, { timeout: 30_000 });
  const next = await shown(again.page);
  assert.ok(Math.abs(next.ghostBest - lap.time) < 1e-9, `ghost ${next.ghostBest} is the lap ${lap.time}`);
  // Downloaded from the board: the record's ghost (the same lap here).
  assert.match(String(next.ghostSource), /^the record, /, 'the ghost chased is the board\'s record');
  await again.page.keyboard.down('ArrowUp');
  await again.page.waitForFunction(() => window.skidpadPlay.shown().hud?.delta !== null && window.skidpadPlay.shown().hud?.delta !== undefined, undefined, { timeout: 30_000 });
  ok(`play: the board's record is downloaded and raced as a ghost next time (${next.ghostSource}; gap ${(await shown(again.page)).hud.delta.toFixed(2)} s)`);
  // A flashback: on for three seconds, then the rewind key held for half
  // a second goes back whole seconds, and the leaderboard says why the
  // run is not ranked.
  await again.page.waitForTimeout(3000);
  await again.page.keyboard.up('ArrowUp');
  const before = (await shown(again.page)).step;
  await again.page.keyboard.down('Backspace');
  await again.page.waitForTimeout(500);
  await again.page.keyboard.up('Backspace');
  await again.page.waitForTimeout(100);
  const after = await shown(again.page);
  assert.ok(after.hud.rewinds >= 1 && after.step <= before - 60, `rewound from step ${before} to ${after.step} (${after.hud.rewinds} rewinds)`);
  assert.equal(await again.page.isVisible('#hud-rewound'), true, 'the HUD says the run is rewound');
  await again.page.keyboard.down('ArrowUp');
  await again.page.waitForTimeout(1000);
  await again.page.keyboard.up('ArrowUp');
  await again.page.click('#finish');
  await again.page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 30_000 });
  await again.page.click('#submit');
  await again.page.waitForFunction(() => window.skidpadPlay.shown().verdict !== null, undefined, { timeout: 120_000 });
  const refused = (await shown(again.page)).verdict;
  assert.equal(refused.status, 'rejected', JSON.stringify(refused));
  assert.ok(/rewound \d+ times/.test(refused.reason), JSON.stringify(refused));
  ok(`play: Backspace held rewound the run from step ${before} to ${after.step} (${after.hud.rewinds} rewinds); the leaderboard verified it and said "${refused.reason.slice(0, 60)}…"`);
  await again.page.close();

  await checkGamepad(browser, base);
}

/** "Drive from here" on a leaderboard's run: the play page opens run
 * `id` at step 600 (10 s in) and offers the record's sector starts; the
 * player starts at sector 2 of its first lap, level with the record's own
 * car (the ghost beside them), and the leaderboard refuses the new run at
 * the door (a take-over ranks only on a practice board). */
async function checkTakeOver(browser, base, id) {
  browser.expectErrors(/status of 422/, 'the leaderboard refuses a taken-over run at the door');
  const { page, logs } = await openPlay(browser.context, base, `&from=/runs/${id}/replay&step=600&seat=0`);
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('driving on from step 600'), undefined, { timeout: 30_000 });
  const offered = await page.$$eval('#start-at option', (all) => all.map((o) => ({ text: o.textContent, step: o.value })));
  const sector = offered.find((o) => o.text.startsWith('lap 1 · sector 2'));
  assert.ok(sector, `the record's sector starts are offered: ${JSON.stringify(offered)}`);
  await page.selectOption('#start-at', sector.step);
  await page.waitForFunction((step) => document.querySelector('#status').textContent.includes(`driving on from step ${step} `), sector.step, { timeout: 10_000 });
  await page.click('#start');
  // On the grid (the countdown), the player's car is the record's car at
  // that step, bit for bit where the ghost is.
  await page.waitForFunction(() => { const s = window.skidpadPlay.shown(); return s.step === 0 && s.pose && s.ghost; }, undefined, { timeout: 30_000 });
  const grid = await shown(page);
  assert.deepEqual(grid.pose, grid.ghost, 'the player starts where the record\'s car was');
  await page.waitForFunction(() => window.skidpadPlay.shown().state === 'driving', undefined, { timeout: 30_000 });
  const started = await shown(page);
  assert.equal(started.takenOver?.step, Number(sector.step), JSON.stringify(started.takenOver));
  await page.keyboard.down('ArrowUp');
  await page.waitForTimeout(1500);
  await page.keyboard.up('ArrowUp');
  const driven = await page.evaluate(() => window.skidpadPlay.shown().step);
  assert.ok(driven > 60, `the taken-over run stepped (${driven} steps; logs: ${logs.join(' | ')})`);
  await page.click('#finish');
  await page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 30_000 });
  await page.click('#submit');
  await page.waitForFunction(() => window.skidpadPlay.shown().error, undefined, { timeout: 60_000 });
  const { error } = await shown(page);
  assert.match(String(error), /taken over from another run/);
  ok(`play: drive from here on the leaderboard's run ${id.slice(0, 8)}… at ${sector.text}, step ${sector.step} of ${offered.length - 1} sector starts offered, level with the record's car (${driven} steps driven beside it); the leaderboard refused it at the door: a take-over ranks only on a practice board`);
  await page.close();
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Prints the figures BENCHMARKS.md quotes (never fails on them): the
 * worker's cost per physics step, a key's wait until a step used it, and
 * the page's frame time while driving (SwiftShader at 480×320). */
async function reportPerformance(page) {
  await page.evaluate(() => window.skidpadPlay.requestStats());
  await page.waitForFunction(() => window.skidpadPlay.shown().perf !== undefined, undefined, { timeout: 10_000 });
  const { perf, frameTimes } = await shown(page);
  const line = (name, values, unit) =>
    `${name} p50 ${percentile(values, 50).toFixed(2)} / p99 ${percentile(values, 99).toFixed(2)} ${unit} (${values.length})`;
  ok(`play figures: ${line('physics step', perf.stepMs, 'ms')}; ${line('key to step', perf.latencyMs, 'ms')}; ${line('frame', frameTimes, 'ms')}`);
}

/** A scripted pad: the page reads it as a real one, through the standard
 * profile, and the car runs what the npm package says those readings
 * give. */
async function checkGamepad(browser, base) {
  const { page } = await openPlay(browser.context, base);
  const readings = { axes: [0.5, 0, 0, 0], triggers: [0, 0.6] };
  await page.evaluate((r) => {
    const pad = {
      mapping: 'standard',
      axes: r.axes,
      buttons: Array.from({ length: 17 }, (_, i) => ({
        pressed: (i === 7 && r.triggers[1] > 0) || (i === 6 && r.triggers[0] > 0),
        value: i === 6 ? r.triggers[0] : i === 7 ? r.triggers[1] : 0,
      })),
    };
    window.skidpadPlay.setGamepadSource(() => [pad]);
  }, readings);
  await page.click('#start');
  await page.waitForFunction(() => (window.skidpadPlay.shown().step ?? 0) > 30, undefined, { timeout: 30_000 });
  const state = await shown(page);
  const axes = new Float64Array(8);
  axes.set(readings.axes);
  axes[6] = readings.triggers[0];
  axes[7] = readings.triggers[1];
  const buttons = new Uint8Array(17);
  buttons[7] = 1;
  const controls = sk.DeviceProfile.standardGamepad().controls(axes, buttons);
  const expected = sk.carInputFrom(controls, 0, 6);
  assert.equal(state.hud.steer, expected.steer, 'steer through the dead zone and curve');
  assert.equal(state.hud.throttle, expected.throttle, 'throttle from the right trigger');
  ok(`play: a scripted gamepad drives steer ${expected.steer.toFixed(4)}, throttle ${expected.throttle.toFixed(4)}, as the profile says`);
  await page.close();
}
