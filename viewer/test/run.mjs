// The viewer's test in headless Chromium, against the real `skidpad view`
// server and (for the live check) the real spectator service:
//
// 1. poses: the golden mixed-field replay, seeked to steps across it,
//    shows every car exactly at the pose the native `skidpad export`
//    gives (and the meshes there to float32 precision);
// 2. screenshots of four cameras compared with committed references;
// 3. frame time while scrubbing a 20-car race, reported (never failed on);
// 4. eight ghosts raced against the car their lap came from;
// 5. deep links, wall-clock playback, lap markers;
// 6. desync markers, and a corrupt replay and one of another version
//    shown as errors;
// 7. cars the recording removed hidden from their step, the rest exact;
// 8. a live race followed from the spectator service.
//
// Environment: SKIDPAD_BIN (the skidpad binary), SKIDPAD_SPECTATOR_BIN,
// SKIDPAD_UPDATE_SCREENSHOTS=1 to rewrite the references. Run by
// `cargo xtask test` (alone: `cargo xtask test --only viewer`).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { launch, openViewer, startServer } from './browser.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const bin = process.env.SKIDPAD_BIN ?? join(root, 'target/release/skidpad');
const spectatorBin = process.env.SKIDPAD_SPECTATOR_BIN ?? join(root, 'target/release/skidpad-spectator');
const work = join(root, 'target/viewer-test');
const references = join(here, 'reference');
const update = process.env.SKIDPAD_UPDATE_SCREENSHOTS === '1';

/** Pixels that may differ from a reference screenshot, as a fraction:
 * SwiftShader is deterministic on one machine, but another CPU or
 * Chromium release may round an edge differently. */
const SCREENSHOT_TOLERANCE = 0.01;
const POSE_FIELDS = ['x', 'y', 'z', 'yaw', 'pitch', 'roll'];

const VERSION = sk.simulationVersion();
const goldenDir = join(root, `golden/v${VERSION}`);

mkdirSync(work, { recursive: true });

function ok(message) {
  console.log(`ok  ${message}`);
}

/** `skidpad export` of a replay, natively: per step, per car, the
 * channels named in its `channels`. */
function nativeExport(file) {
  return JSON.parse(execFileSync(bin, ['export', file], { maxBuffer: 1 << 30 }).toString());
}

/** Races the 20-car demo once (cached under target/) and returns its
 * files and which car and lap its ghost is. */
function demo20() {
  const out = join(work, 'demo20');
  const summary = join(out, 'summary.txt');
  if (!existsSync(summary)) {
    const text = execFileSync(bin, ['demo', '--cars', '20', '--laps', '2', '--out', out]).toString();
    writeFileSync(summary, text);
  }
  const text = readFileSync(summary, 'utf8');
  const [, car, lap] = text.match(/best lap\s+car (\d+) lap (\d+)/);
  return { replay: join(out, 'demo.skr'), ghost: join(out, 'best_lap.skg'), car: Number(car), lap: Number(lap) };
}

async function view(files) {
  return startServer(bin, ['view', '--port', '0', ...files]);
}

async function withViewer(browser, server, query, body) {
  const { page, logs, outcome } = await openViewer(browser.context, `${server.url}${query}`);
  try {
    return await body(page, outcome, logs);
  } catch (e) {
    e.message += `\npage console:\n${logs.slice(-20).join('\n')}`;
    throw e;
  } finally {
    await page.close();
  }
}

/** Seeks the page to a step and draws; returns the viewer's poses and
 * the car meshes' positions and yaw. */
function posesAtStep(page, step) {
  return page.evaluate((s) => {
    const v = window.viewer;
    v.clock.pause();
    v.seekStep(s);
    v.draw(v.clock.time);
    return {
      step: v.recording.stepOf(v.recording.sampleAt(v.clock.time)),
      poses: v.poses.map((p) => Array.from(p)),
      meshes: v.scene.cars.map((m) => [m.group.position.x, m.group.position.y, m.group.position.z, m.group.rotation.z]),
    };
  }, step);
}

/** The page's pose of `car` equals the native export's row `values`
 * (`index`: channel name → column), field by field. */
function assertPoseEquals(shown, values, index, step, car) {
  POSE_FIELDS.forEach((field, f) => {
    assert.equal(shown.poses[car][f], values[index[field]], `step ${step} car ${car} ${field}`);
  });
}

async function checkPoses(browser) {
  const file = join(goldenDir, 'mixed_field.skr');
  const native = nativeExport(file);
  const index = Object.fromEntries(native.channels.map((c, k) => [c, k]));
  const server = await view([file]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, `the golden replay loads: ${outcome.error}`);
      // The export's rows are the steps after the first (1 ..= last).
      const last = native.steps.length;
      const steps = [1, 2, 599, 600, 601, 1234, 2700, last - 1, last];
      for (const step of steps) {
        const shown = await posesAtStep(page, step);
        assert.equal(shown.step, step);
        const row = native.steps[step - 1];
        assert.equal(row.step, step);
        row.cars.forEach((values, car) => {
          assertPoseEquals(shown, values, index, step, car);
          for (let f = 0; f < 3; f++) {
            assert.ok(Math.abs(shown.meshes[car][f] - values[index[POSE_FIELDS[f]]]) < 1e-3, `mesh ${f} at step ${step}`);
          }
        });
      }
      ok(`golden mixed_field.skr: the poses of all ${native.cars.length} cars equal the native export at steps ${steps.join(', ')}`);

      // Between two samples the pose is interpolated, not held.
      const between = await page.evaluate(() => {
        const v = window.viewer;
        const rec = v.recording;
        const i = 1234;
        const t = (rec.times[i] + rec.times[i + 1]) / 2;
        v.seek(t);
        v.draw(t);
        return { x: v.poses[0][0], x0: rec.value(i, 0, 0), x1: rec.value(i + 1, 0, 0) };
      });
      const mid = (between.x0 + between.x1) / 2;
      assert.ok(between.x !== between.x0 && between.x !== between.x1, 'a time between samples is interpolated');
      assert.ok(Math.abs(between.x - mid) < 0.05, `interpolated x ${between.x} near the midpoint ${mid}`);
      ok('between steps the pose is interpolated (Hermite), not held');
    });
    // A replay too long for the memory budget is kept every k-th step:
    // the kept steps are still exact, the last step is always kept.
    const budget = 600 * 1024;
    await withViewer(browser, server, `?sampleBudget=${budget}`, async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const stride = await page.evaluate(() => window.viewer.recording.meta.stride);
      assert.ok(stride > 1, `a stride: ${stride}`);
      const last = native.steps.length;
      for (const step of [stride, 100 * stride, last]) {
        const shown = await posesAtStep(page, step);
        assert.equal(shown.step, step);
        native.steps[step - 1].cars.forEach((values, car) => {
          POSE_FIELDS.forEach((field, f) => assert.equal(shown.poses[car][f], values[index[field]], `sampled step ${step} car ${car} ${field}`));
        });
      }
      ok(`with a ${budget / 1024} KiB budget the replay is kept every ${stride} steps, and the kept steps (up to ${last}) are exact`);
    });
  } finally {
    server.child.kill();
  }
}

function comparePng(name, png) {
  const file = join(references, `${name}.png`);
  const actualFile = join(work, `${name}.png`);
  writeFileSync(actualFile, png);
  if (update || !existsSync(file)) {
    writeFileSync(file, png);
    console.log(`    wrote reference ${name}.png`);
    return;
  }
  const a = PNG.sync.read(readFileSync(file));
  const b = PNG.sync.read(png);
  assert.equal(`${b.width}x${b.height}`, `${a.width}x${a.height}`, `${name}: screenshot size`);
  const diff = new PNG({ width: a.width, height: a.height });
  const differing = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: 0.1 });
  const fraction = differing / (a.width * a.height);
  if (fraction > SCREENSHOT_TOLERANCE) {
    writeFileSync(join(work, `${name}.diff.png`), PNG.sync.write(diff));
  }
  assert.ok(
    fraction <= SCREENSHOT_TOLERANCE,
    `${name}: ${(fraction * 100).toFixed(2)} % of pixels differ from the reference (see ${actualFile})`,
  );
  console.log(`    ${name}: ${(fraction * 100).toFixed(3)} % of pixels differ`);
}

async function checkScreenshots(browser) {
  const file = join(goldenDir, 'mixed_field.skr');
  const server = await view([file]);
  try {
    await withViewer(browser, server, '?car=1', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      for (const cam of ['chase', 'cockpit', 'orbit', 'tv', 'free']) {
        const dataUrl = await page.evaluate((c) => {
          const v = window.viewer;
          v.clock.pause();
          v.setCamera(c);
          v.seekStep(1234);
          v.draw(v.clock.time);
          return v.canvas.toDataURL('image/png');
        }, cam);
        comparePng(`mixed_field_1234_${cam}`, Buffer.from(dataUrl.split(',')[1], 'base64'));
      }
      ok('screenshots of the chase, cockpit, orbit, TV and free cameras match the references');
    });
  } finally {
    server.child.kill();
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function checkScrubbing(browser, race) {
  const server = await view([race.replay]);
  try {
    return await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      // One seek per animation frame, sweeping the whole race forward and
      // back (as a user dragging the scrubber), for 600 frames; the page's
      // own loop draws each frame and times its work.
      const frames = await page.evaluate(
        () => new Promise((resolve) => {
          const v = window.viewer;
          v.clock.pause();
          const rec = v.recording;
          const intervals = [];
          const firstFrame = v.frames;
          let k = 0;
          let last = null;
          const total = 600;
          const tick = (now) => {
            if (last !== null) intervals.push(now - last);
            last = now;
            const u = k < total / 2 ? k / (total / 2) : 2 - k / (total / 2);
            v.seek(rec.start + u * (rec.end - rec.start));
            k += 1;
            if (k < total) {
              requestAnimationFrame(tick);
              return;
            }
            const work = [];
            for (let f = firstFrame + 1; f < v.frames; f++) work.push(v.frameTimes[f % v.frameTimes.length]);
            resolve({ work, intervals, cars: rec.cars, steps: rec.count - 1 });
          };
          requestAnimationFrame(tick);
        }),
      );
      const load = await page.evaluate(() => window.viewer.result);
      const report = {
        load_first_samples_ms: load.firstSamplesMs,
        load_total_ms: load.loadMs,
        worker_simulate_ms: load.simulateMs,
        worker_read_ms: load.readMs,
        cars: frames.cars,
        steps: frames.steps,
        frames: frames.work.length,
        work_p50_ms: percentile(frames.work, 50),
        work_p99_ms: percentile(frames.work, 99),
        interval_p50_ms: percentile(frames.intervals, 50),
        interval_p99_ms: percentile(frames.intervals, 99),
      };
      writeFileSync(join(root, 'target/viewer-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
      const f = (v) => v.toFixed(2);
      ok(
        `a ${report.cars}-car, ${report.steps}-step replay re-simulated in the worker: first samples after ${report.load_first_samples_ms.toFixed(0)} ms, `
        + `all after ${report.load_total_ms.toFixed(0)} ms (in the worker: ${report.worker_simulate_ms.toFixed(0)} ms re-simulating, `
        + `${report.worker_read_ms.toFixed(0)} ms reading poses, telemetry and track distances)`,
      );
      ok(
        `scrubbing it both ways: frame work p50 ${f(report.work_p50_ms)} ms, `
        + `p99 ${f(report.work_p99_ms)} ms; frame interval p50 ${f(report.interval_p50_ms)} ms, p99 ${f(report.interval_p99_ms)} ms `
        + '(target p99 ≤ 16 ms; reported, not enforced)',
      );
      return report;
    });
  } finally {
    server.child.kill();
  }
}

async function checkGhosts(browser, race) {
  const ghosts = Array.from({ length: 8 }, () => race.ghost);
  const server = await view([race.replay, ...ghosts]);
  try {
    await withViewer(browser, server, `?car=${race.car}&cam=chase`, async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const state = await page.evaluate(({ car, lap }) => {
        const v = window.viewer;
        // Measured from the ghost's own line: its lap starts at each
        // crossing of the point where the ghost's frame 0 is, the first of
        // them the run up from the grid (or the start, for a car standing
        // on that point), so lap n starts at the nth.
        const start = v.ghosts.lapStarts(v.recording, car, v.ghosts.ghosts[0])[lap - 1];
        v.clock.pause();
        // Past both split points (a third and two thirds of the lap).
        v.seek(start + 50);
        v.draw(v.clock.time);
        const splits = [...document.querySelectorAll('#ghosts .ghost-row')].map((r) => JSON.parse(r.dataset.splits));
        v.seek(start + 20);
        v.draw(v.clock.time);
        const rows = [...document.querySelectorAll('#ghosts .ghost-row')].map((r) => r.dataset.gap);
        const ghost = v.scene.ghosts[0].group.position;
        return {
          rows,
          splits,
          visible: v.scene.ghosts.filter((g) => g.group.visible).length,
          ghost: [ghost.x, ghost.y],
          car: [v.poses[car][0], v.poses[car][1]],
          markers: document.querySelectorAll('#markers .marker.lap').length,
          contacts: [...document.querySelectorAll('#markers .marker.contact')].map((m) => m.title),
          lapEvents: v.recording.events.filter((e) => e.kind === 'lap').length,
        };
      }, race);
      assert.equal(state.rows.length, 8, 'eight ghost rows');
      assert.equal(state.visible, 8, 'eight ghost cars drawn');
      for (const gap of state.rows) {
        assert.ok(gap !== '' && Math.abs(Number(gap)) < 0.05, `the car racing its own lap is level with its ghost: gap ${gap}`);
      }
      for (const split of state.splits) {
        assert.equal(split.length, 2, `two splits passed 50 s into the lap: ${split}`);
        for (const delta of split) assert.ok(Math.abs(delta) < 0.05, `split delta ${delta} against its own lap`);
      }
      const apart = Math.hypot(state.ghost[0] - state.car[0], state.ghost[1] - state.car[1]);
      assert.ok(apart < 0.5, `the ghost drives where the car drove (${apart.toFixed(3)} m apart)`);
      assert.ok(state.markers > 0 && state.markers === state.lapEvents, 'a timeline marker per lap crossing');
      // Twenty AI cars from a standing start bump into each other.
      assert.ok(state.contacts.length > 0, 'contact markers on the timeline');
      for (const title of state.contacts) assert.match(title, /^contact at .* \(cars \d+, (\d+|ground)\)$/);
      ok(`8 ghosts of car ${race.car}'s lap ${race.lap}, raced against that car: gaps 20 s into the lap and both split deltas within 0.05 s, ghost ${apart.toFixed(3)} m from the car; ${state.markers} lap markers, ${state.contacts.length} contact markers`);

      // Events fire once when playback crosses them, never while scrubbing.
      const fired = await page.evaluate(async ({ car }) => {
        const v = window.viewer;
        const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const mine = () => v.announced.filter((e) => e.kind === 'lap' && e.car === car).map((e) => e.lap);
        const lap = v.recording.laps(car)[1];
        v.clock.pause();
        v.announced = [];
        // Scrub over the line, a frame drawn at each position.
        for (const dt of [-3, -1, 1, 3, -2, 2]) {
          v.seek(lap.time + dt);
          await frame();
        }
        const scrubbed = mine();
        v.seek(lap.time - 0.5);
        v.clock.setSpeed(1);
        v.clock.play(1);
        while (v.clock.time < lap.time + 0.5) await frame();
        v.clock.pause();
        return { scrubbed, played: mine() };
      }, race);
      assert.deepEqual(fired, { scrubbed: [], played: [2] }, 'the lap event fires once when played across, never when scrubbed across');
      ok(`playing across car ${race.car}'s lap line announced the end of lap 2 once; scrubbing across it announced nothing`);
    });
  } finally {
    server.child.kill();
  }
}

async function checkStreamFile(browser, race) {
  // A `.sks` stream (the demo writes one while racing) opens like its
  // replay and ends on the same world.
  const stream = race.replay.replace(/\.skr$/, '.sks');
  const expected = sk.decodeReplay(readFileSync(race.replay)).finalHash;
  const server = await view([stream]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const seen = await page.evaluate(() => ({ hash: window.viewer.result.finalHash, cars: window.viewer.recording.cars }));
      assert.equal(seen.hash, expected, 'the stream re-simulates to the replay\'s final world');
      ok(`demo.sks opens as a stream: ${seen.cars} cars re-simulated to the replay's final hash`);
    });
  } finally {
    server.child.kill();
  }
}

async function checkLinksAndClock(browser) {
  const file = join(goldenDir, 'mixed_field.skr');
  const server = await view([file]);
  try {
    await withViewer(browser, server, '?step=1234&car=2&cam=tv', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const state = await page.evaluate(() => {
        const v = window.viewer;
        return { car: v.car, cam: v.cameras.mode, step: v.recording.stepOf(v.recording.sampleAt(v.clock.time)) };
      });
      assert.deepEqual(state, { car: 2, cam: 'tv', step: 1234 });
      ok('deep link ?step=1234&car=2&cam=tv opens at step 1234 on car 2 with the TV camera');
      // The controls, as a user works them.
      await page.selectOption('#car', '3');
      await page.selectOption('#camera', 'cockpit');
      await page.selectOption('#speed', '0.25');
      await page.locator('#forward').click();
      await page.keyboard.press('.');
      await page.keyboard.press('.');
      await page.keyboard.press(',');
      const controls = await page.evaluate(() => {
        const v = window.viewer;
        return {
          car: v.car,
          cam: v.cameras.mode,
          speed: v.clock.speed,
          step: v.recording.stepOf(v.recording.sampleAt(v.clock.time)),
          legend: [...document.querySelectorAll('#chart .u-legend .u-label')].map((th) => th.textContent.trim()).filter(Boolean),
        };
      });
      assert.deepEqual(
        { car: controls.car, cam: controls.cam, speed: controls.speed, step: controls.step },
        { car: 3, cam: 'cockpit', speed: 0.25, step: 1236 },
      );
      assert.ok(controls.legend.some((l) => l.startsWith('speed')), `the chart shows the chosen car's channels: ${controls.legend}`);
      ok('car picker, camera picker, ¼× speed, frame step by button and keys (1234 → 1236) work from the page');
      // Playback follows the wall clock × speed: between any two frames
      // time moves by the frames' timestamps × 8, however many frames a
      // slow machine manages.
      const played = await page.evaluate(
        () => new Promise((resolve) => {
          const v = window.viewer;
          v.seekStep(600);
          v.clock.setSpeed(8);
          v.clock.play(1);
          const seen = [];
          const watch = (now) => {
            // The page's loop ran first this frame (registered first).
            seen.push([now, v.clock.time]);
            if (seen.length < 30) requestAnimationFrame(watch);
            else {
              v.clock.pause();
              resolve(seen);
            }
          };
          requestAnimationFrame(watch);
        }),
      );
      const [[wall0, t0], [wall1, t1]] = [played[1], played[played.length - 1]];
      const ratio = (t1 - t0) / ((wall1 - wall0) / 1000);
      assert.ok(Math.abs(ratio - 8) < 0.01, `8× playback ran ${ratio.toFixed(3)}× the frames' clock`);
      played.simulated = t1 - t0;
      played.wall = (wall1 - wall0) / 1000;
      ok(`8× playback advanced ${played.simulated.toFixed(2)} s in ${played.wall.toFixed(2)} s of frame timestamps (${played.length} frames)`);
    });
  } finally {
    server.child.kill();
  }
}

async function checkDesyncs(browser) {
  // The game-logic golden replay needs its game's hooks to re-simulate;
  // the viewer has none, so it desyncs at the keyframes (every 600 steps)
  // after the cars met the game's hill, and must say so.
  const server = await view([join(goldenDir, 'game_logic.skr')]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const state = await page.evaluate(() => {
        const v = window.viewer;
        const markers = [...document.querySelectorAll('#markers .marker.desync')].map((m) => Number(m.dataset.time));
        const steps = v.recording.events.filter((e) => e.kind === 'desync').map((e) => e.step);
        return { markers, steps, times: steps.map((s) => v.recording.times[s]), status: document.querySelector('#status').textContent };
      });
      const n = state.steps.length;
      assert.ok(n >= 1 && state.steps.every((s) => s % 600 === 0), `desyncs at keyframes: ${state.steps}`);
      assert.deepEqual(state.markers, state.times, 'a timeline marker at each desync');
      assert.match(state.status, new RegExp(`\\b${n} DESYNC${n === 1 ? '' : 'S'}\\b`));
      ok(`game_logic.skr played without its game: desync markers at steps ${state.steps.join(', ')}, status "${state.status}"`);
    });
  } finally {
    server.child.kill();
  }
}

async function checkRemovals(browser) {
  // The retirements golden: the game removed car 1 before step 500 and
  // car 3 before step 1200. The page must hide each from its step on and
  // still show the others exactly where the native export has them.
  const file = join(goldenDir, 'retirements.skr');
  const native = nativeExport(file);
  const index = Object.fromEntries(native.channels.map((c, k) => [c, k]));
  const server = await view([file]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const steps = [499, 500, 1199, 1200, 2400];
      for (const step of steps) {
        const shown = await posesAtStep(page, step);
        const visible = await page.evaluate(() => window.viewer.scene.cars.map((m) => m.group.visible));
        native.steps[step - 1].cars.forEach((values, car) => {
          if (values === null) {
            assert.ok(Number.isNaN(shown.poses[car][0]), `car ${car} has no pose at step ${step}`);
            assert.equal(visible[car], false, `car ${car} hidden at step ${step}`);
            return;
          }
          assertPoseEquals(shown, values, index, step, car);
        });
      }
      ok(`retirements.skr: removed cars hidden from their step (1 at 500, 3 at 1200), the others exact at steps ${steps.join(', ')}`);
    });
  } finally {
    server.child.kill();
  }
}

async function checkErrors(browser) {
  const good = readFileSync(join(goldenDir, 'flat_lap.skr'));
  const corrupt = join(work, 'corrupt.skr');
  writeFileSync(corrupt, good.subarray(0, Math.floor(good.length / 2)));
  const older = join(root, `golden/v${VERSION - 1}/flat_lap.skr`);
  const notReplay = join(work, 'not-a-replay.skr');
  writeFileSync(notReplay, 'hello, this is text');
  const server = await view([corrupt, older, notReplay]);
  try {
    for (const [k, what, pattern] of [
      [0, 'a truncated replay', /truncat|short|end of|corrupt|checksum/i],
      [1, `a replay of simulation version ${VERSION - 1}`, /version/i],
      [2, 'a file that is not a replay', /not a skidpad/i],
    ]) {
      await withViewer(browser, server, `?src=/files/${k}/x`, async (page, outcome) => {
        assert.equal(outcome.ok, false, `${what} is refused`);
        const shown = await page.evaluate(() => {
          const box = document.querySelector('#error');
          return { hidden: box.hidden, text: box.textContent, visible: box.getBoundingClientRect().height > 0 };
        });
        assert.ok(!shown.hidden && shown.visible, `${what}: the error is shown on the page`);
        assert.match(shown.text, pattern, `${what}: ${shown.text}`);
        ok(`${what}: the page shows "${shown.text}"`);
      });
    }
  } finally {
    server.child.kill();
  }
}

async function checkLive(browser) {
  const service = await startServer(spectatorBin, ['--listen', '127.0.0.1:0', '--cars', '3', '--laps', '1', '--pace', '4', '--chunk-steps', '60']);
  const base = service.url.match(/http:\/\/127\.0\.0\.1:\d+/)[0];
  const raceUrl = `${base}/races/demo`;
  const server = await view([]);
  try {
    // Join late: once the race is a few chunks in.
    for (;;) {
      const range = await (await fetch(`${raceUrl}/range`)).json();
      if (range.last >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { page, logs } = await openViewer(browser.context, `${server.url}?live=${encodeURIComponent(raceUrl)}`, { untilDone: false });
    try {
      const seen = await page.evaluate(async () => {
        const v = window.viewer;
        // The first chunk (the join) has arrived.
        while (!v.recording || v.recording.count === 0) await new Promise((r) => setTimeout(r, 20));
        const first = v.recording.count;
        const firstStep = v.recording.steps[0];
        await v.done;
        return {
          source: v.recording.meta.source,
          firstStep,
          first,
          count: v.recording.count,
          cars: v.recording.cars,
          track: v.recording.meta.track?.name,
          finalHash: v.result.finalHash,
          error: document.querySelector('#error').hidden ? null : document.querySelector('#error').textContent,
        };
      });
      assert.equal(seen.error, null, `no error: ${seen.error}`);
      assert.equal(seen.source, 'live');
      assert.equal(seen.cars, 3);
      assert.equal(seen.track, 'brandwood');
      assert.ok(seen.firstStep > 1, 'joined late');
      assert.ok(seen.count > seen.first, 'samples kept arriving after the join');
      // The host's whole stream, read natively in wasm under node, ends on
      // the world the viewer reached.
      const range = await (await fetch(`${raceUrl}/range`)).json();
      const pieces = [new Uint8Array(await (await fetch(`${raceUrl}/header`)).arrayBuffer())];
      for (let n = range.first; n <= range.last; n++) {
        pieces.push(new Uint8Array(await (await fetch(`${raceUrl}/chunks/${n}`)).arrayBuffer()));
      }
      const stream = new Uint8Array(Buffer.concat(pieces));
      const whole = sk.readStream(stream).replay;
      assert.equal(seen.finalHash, whole.finalHash, 'the viewer ends on the host\'s final world');
      ok(`live race: joined at step ${seen.firstStep}, followed to the end (${seen.count} steps of ${seen.cars} cars drawn), final world ${seen.finalHash.slice(0, 16)}…`);
    } catch (e) {
      e.message += `\npage console:\n${logs.slice(-20).join('\n')}`;
      throw e;
    } finally {
      await page.close();
    }
  } finally {
    server.child.kill();
    service.child.kill();
  }
}

const browser = await launch();
try {
  await checkPoses(browser);
  await checkScreenshots(browser);
  const race = demo20();
  await checkScrubbing(browser, race);
  await checkGhosts(browser, race);
  await checkStreamFile(browser, race);
  await checkLinksAndClock(browser);
  await checkDesyncs(browser);
  await checkRemovals(browser);
  await checkErrors(browser);
  await checkLive(browser);
} finally {
  await browser.close();
}
