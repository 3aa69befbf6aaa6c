// The viewer's feature checks in headless Chromium: ghosts, stream files,
// deep links and the clock, desync markers, errors, and a live race from
// the spectator service.

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { openViewer, startServer } from './browser.mjs';
import assert from 'node:assert/strict';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';
import { goldenHashes } from '../../bindings-wasm/tests/golden.mjs';
import {
  root, spectatorBin, work, VERSION, goldenDir, ok, view, withViewer, nativeExport,
} from './harness.mjs';

export async function checkGhosts(browser, race) {
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
      for (const title of state.contacts) assert.match(title, /^(contact: cars \d+ and \d+|car \d+ hit the ground), \d+ N·s at \d+:\d\d\.\d{3}$/);
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

export async function checkStreamFile(browser, race) {
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

export async function checkLinksAndClock(browser) {
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
      // Every channel is offered in its group; a discrete channel and a
      // wrapping angle join the chart when ticked.
      const offered = await page.evaluate(() => ({
        boxes: document.querySelectorAll('#channels input[type=checkbox]').length,
        channels: window.viewer.recording.meta.channels.length,
        groups: [...document.querySelectorAll('#channels details')].map((d) => d.dataset.group),
      }));
      assert.equal(offered.boxes, offered.channels, 'one checkbox per channel');
      assert.ok(offered.groups.includes('drivetrain') && offered.groups.includes('wheel fl'), `${offered.groups}`);
      await page.locator('#channels details[data-group="drivetrain"] summary').click();
      await page.locator('#channels input[value="gear"]').check();
      await page.locator('#channels details[data-group="orientation"] summary').click();
      await page.locator('#channels input[value="yaw"]').check();
      const legend = await page.evaluate(
        () => [...document.querySelectorAll('#chart .u-legend .u-label')].map((th) => th.textContent.trim()),
      );
      assert.ok(legend.some((l) => l.startsWith('gear')) && legend.some((l) => l.startsWith('yaw')), `${legend}`);
      ok(`the chart offers all ${offered.channels} channels in ${offered.groups.length} groups; ticking gear (discrete) and yaw (an angle) draws them`);
      // The standings and the followed car's dashboard, at step 3001.
      await page.selectOption('#camera', 'chase');
      await page.evaluate(() => window.viewer.seekStep(3001));
      await page.waitForFunction(() => document.querySelector('#standings .followed')?.dataset.car === '3');
      const race = await page.evaluate(() => {
        const v = window.viewer;
        const rec = v.recording;
        const i = rec.sampleOfStep(3001);
        const rows = [...document.querySelectorAll('#standings .standing')];
        return {
          cars: rows.map((r) => Number(/** @type {HTMLElement} */ (r).dataset.car)),
          positions: rows.map((r) => r.firstElementChild.textContent),
          raced: rows.map((r) => rec.raced(i, Number(/** @type {HTMLElement} */ (r).dataset.car))),
          speed: document.querySelector('#dash [data-field="speed"]')?.textContent,
          expectedSpeed: Math.round(rec.channel(i, 3, rec.channels.indexOf('speed')) * 3.6),
          gear: document.querySelector('#dash [data-field="gear"]')?.textContent,
          race: document.querySelector('#dash [data-field="race"]')?.textContent,
          labels: [...document.querySelectorAll('#labels .car-label')].filter((l) => !l.hidden).map((l) => l.dataset.car),
          followedLabel: document.querySelector('#labels .car-label.followed')?.dataset.car,
          dots: v.minimap.drawn,
          steer: !!document.querySelector('#dash [data-field="steer"]'),
          expectedGear: rec.channel(i, 3, rec.channels.indexOf('gear')),
          count: rec.cars,
        };
      });
      assert.equal(race.cars.length, race.count, 'a row per car');
      // The native race layer's order at that step (`skidpad export`).
      const native = nativeExport(file).steps.find((r) => r.step === 3001).order;
      assert.deepEqual(race.cars, native, 'the standings are the native race order');
      assert.deepEqual(race.positions, race.cars.map((_, k) => `P${k + 1}`));
      assert.ok(race.raced.every((d, k) => k === 0 || d <= race.raced[k - 1]), `race order: ${race.raced}`);
      assert.equal(race.speed, `speed ${race.expectedSpeed} km/h`);
      assert.equal(race.gear, `gear ${race.expectedGear}`);
      assert.equal(race.race, 'race 0:50.017', 'the race clock at step 3001');
      assert.ok(race.steer, 'a steer bar');
      assert.equal(race.followedLabel, '3', 'the followed car\'s label is highlighted');
      assert.ok(race.labels.includes('3'), `labels shown: ${race.labels}`);
      assert.equal(race.dots, race.count, 'a dot per car on the minimap');
      // Finding channels: "camber" leaves the four wheels' camber.
      await page.fill('#channel-search', 'camber');
      const found = await page.evaluate(() => [...document.querySelectorAll('#channels label')].filter((l) => !l.hidden && l.offsetParent !== null).map((l) => l.textContent.trim()));
      assert.deepEqual(found, ['wheel_fl_camber (rad)', 'wheel_fr_camber (rad)', 'wheel_rl_camber (rad)', 'wheel_rr_camber (rad)']);
      await page.fill('#channel-search', '');
      const other = race.cars.find((c) => c !== 3);
      await page.locator(`#standings [data-car="${other}"]`).click();
      assert.equal(await page.evaluate(() => window.viewer.car), other, 'clicking a row follows that car');
      ok(`standings of ${race.count} cars at step 3001 in the native race layer's order (cars ${race.cars.join(' ')}), the followed car's speed and gear on the dashboard, a click follows car ${other}`);
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
    // A link the viewer cannot follow: every parameter falls back, says so
    // on the page, and the race still draws.
    await withViewer(browser, server, '?car=42&speed=100&cam=drone&step=999999&t=abc', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const shown = await page.evaluate(
        () => new Promise((resolve) => {
          const v = window.viewer;
          v.done.then(() => {
            const before = v.frames;
            // Two drawn frames after the seek to the end.
            const wait = () => (v.frames >= before + 2 ? resolve({
              car: v.car,
              cam: v.cameras.mode,
              speed: v.clock.speed,
              speedShown: document.querySelector('#speed').value,
              atEnd: v.recording.stepOf(v.recording.sampleAt(v.clock.time)) === v.recording.meta.steps,
              error: document.querySelector('#error').hidden ? null : document.querySelector('#error').textContent,
              notices: [...document.querySelectorAll('#notice div')].map((d) => d.textContent),
              noticeShown: !document.querySelector('#notice').hidden,
            }) : requestAnimationFrame(wait));
            requestAnimationFrame(wait);
          });
        }),
      );
      assert.equal(shown.error, null, 'no error: the page still draws');
      assert.deepEqual(
        { car: shown.car, cam: shown.cam, speed: shown.speed, speedShown: shown.speedShown, atEnd: shown.atEnd },
        { car: 0, cam: 'chase', speed: 1, speedShown: '1', atEnd: true },
      );
      assert.ok(shown.noticeShown);
      for (const expected of [/t=abc is not a number/, /camera "drone" does not exist/, /speed 100 is not offered/, /car 42 is not in this race \(cars 0 to \d+\)/, /step 999999 is past the end/]) {
        assert.ok(shown.notices.some((n) => expected.test(n)), `${expected} among ${JSON.stringify(shown.notices)}`);
      }
      ok(`bad deep link ?car=42&speed=100&cam=drone&step=999999&t=abc: ${shown.notices.length} messages on the page, car 0, 1×, chase camera, the last step drawn`);
    });
  } finally {
    server.child.kill();
  }
}

export async function checkDesyncs(browser) {
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

export async function checkArchivedCore(browser) {
  // A replay of an older simulation version plays in that version's
  // archived core, fetched on demand (that module only), to the world
  // hash that version's corpus pins, and the page says which core it was.
  const version = VERSION - 1;
  const older = join(root, `golden/v${version}/flat_lap.skr`);
  const pinned = goldenHashes(version).table['flat_lap.skr'].final;
  const manifest = JSON.parse(readFileSync(join(root, 'cores/archive/manifest.json'), 'utf8'));
  const entry = manifest.cores.find((c) => c.version === version);
  const fetched = [];
  const listen = (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/cores/')) fetched.push(path);
  };
  browser.context.on('request', listen);
  const server = await view([older]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const seen = await page.evaluate(() => {
        const v = window.viewer;
        return {
          hash: v.result.finalHash,
          desyncs: v.result.desyncs,
          status: document.querySelector('#status').textContent,
          meta: { core: v.recording.meta.core, coreBytes: v.recording.meta.coreBytes, steps: v.recording.meta.steps },
          laps: v.recording.events.filter((e) => e.kind === 'lap').length,
        };
      });
      assert.equal(seen.hash, pinned, `v${version}/flat_lap.skr plays to the final hash v${version}/HASHES pins`);
      assert.equal(seen.desyncs, 0);
      assert.equal(seen.meta.core, 'archived');
      assert.equal(seen.meta.coreBytes, entry.bytes, `the module of version ${version} was the one loaded`);
      assert.match(seen.status, new RegExp(`simulation v${version} \\(archived core\\)`));
      assert.ok(seen.laps >= 1, 'its lap is timed');
      assert.deepEqual([...new Set(fetched)].sort(), ['/cores/manifest.json', `/cores/${entry.module}`], 'only that version\'s module is fetched');
      ok(`v${version}/flat_lap.skr played by its archived core (${entry.bytes} bytes, fetched alone): final hash as pinned, status "${seen.status}"`);
    });
  } finally {
    browser.context.off('request', listen);
    server.child.kill();
  }
  // The same version's resets.skr (golden/README.md: car 1 put back
  // before step 700, car 2 before 1200, car 0 before 1500; their first
  // laps do not count): the archived core's interface has no resets, so
  // the page reads them from the file and lists them, and the race layer
  // voids those laps, as for a current replay.
  const resetsServer = await view([join(root, `golden/v${version}/resets.skr`)]);
  try {
    await withViewer(browser, resetsServer, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const seen = await page.evaluate(() => ({
        core: window.viewer.recording.meta.core,
        events: window.viewer.recording.events.map((e) => ({ kind: e.kind, step: e.step, car: e.car, lap: e.lap, valid: e.valid })),
      }));
      assert.equal(seen.core, 'archived');
      const resets = seen.events.filter((e) => e.kind === 'reset').map((e) => [e.step, e.car]);
      assert.deepEqual(resets, [[700, 1], [1200, 2], [1500, 0]]);
      const firstLaps = Object.fromEntries(seen.events.filter((e) => e.kind === 'lap' && e.lap === 1).map((e) => [e.car, e.valid]));
      assert.deepEqual(firstLaps, { 0: false, 1: false, 2: false, 3: true }, JSON.stringify(firstLaps));
      const items = await page.$$eval('#events li[data-kind="reset"]', (li) => li.length);
      assert.equal(items, 3);
      ok(`v${version}/resets.skr played by its archived core: its 3 resets (read from the file) listed at steps 700, 1200 and 1500, the first laps of cars 0-2 void and car 3's valid`);
    });
  } finally {
    resetsServer.child.kill();
  }
}

export async function checkErrors(browser) {
  const good = readFileSync(join(goldenDir, 'flat_lap.skr'));
  const corrupt = join(work, 'corrupt.skr');
  writeFileSync(corrupt, good.subarray(0, Math.floor(good.length / 2)));
  const notReplay = join(work, 'not-a-replay.skr');
  writeFileSync(notReplay, 'hello, this is text');
  // `skidpad view` refuses both on its command line (cli/tests/binary.rs),
  // so the page meets them as links to another server, as it would a bad
  // file anywhere on the web.
  const server = await view([join(goldenDir, 'flat_lap.skr')]);
  const elsewhere = await serveFiles([corrupt, notReplay]);
  try {
    for (const [k, what, pattern] of [
      [0, 'a truncated replay', /truncat|short|end of|corrupt|checksum/i],
      [1, 'a file that is not a replay', /not a skidpad/i],
    ]) {
      await withViewer(browser, server, `?src=${encodeURIComponent(`${elsewhere.url}/${k}`)}`, async (page, outcome) => {
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
    elsewhere.close();
  }
}

/** Serves `files` at `/0`, `/1`, … on 127.0.0.1 to any page (CORS), as
 * a file host other than `skidpad view` would. */
async function serveFiles(files) {
  const server = createServer((req, res) => {
    const k = Number(new URL(req.url, 'http://127.0.0.1').pathname.slice(1));
    if (!Number.isInteger(k) || !files[k]) {
      res.writeHead(404, { 'access-control-allow-origin': '*' }).end();
      return;
    }
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' });
    res.end(readFileSync(files[k]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** The whole stream of the race at `raceUrl`, as the service serves it. */
async function servedStream(raceUrl) {
  const range = await (await fetch(`${raceUrl}/range`)).json();
  const pieces = [new Uint8Array(await (await fetch(`${raceUrl}/header`)).arrayBuffer())];
  for (let n = range.first; n <= range.last; n++) {
    pieces.push(new Uint8Array(await (await fetch(`${raceUrl}/chunks/${n}`)).arrayBuffer()));
  }
  return new Uint8Array(Buffer.concat(pieces));
}

/** Starts the spectator service's demo race with `args`, opens the
 * viewer on it once `chunks` chunks are sealed, and runs `check(page,
 * raceUrl)`; the page's last console lines join a failure's message. */
async function withLiveRace(browser, args, chunks, check) {
  const service = await startServer(spectatorBin, ['--listen', '127.0.0.1:0', '--laps', '1', '--pace', '4', '--chunk-steps', '60', ...args]);
  const raceUrl = `${service.url.match(/http:\/\/127\.0\.0\.1:\d+/)[0]}/races/demo`;
  const server = await view([]);
  try {
    for (;;) {
      const range = await (await fetch(`${raceUrl}/range`)).json();
      if (range.last >= chunks) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { page, logs } = await openViewer(browser.context, `${server.url}?live=${encodeURIComponent(raceUrl)}`, { untilDone: false });
    try {
      await check(page, raceUrl);
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

export async function checkLive(browser) {
  // Join late: once the race is a few chunks in.
  await withLiveRace(browser, ['--cars', '3'], 3, async (page, raceUrl) => {
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
    const whole = sk.readStream(await servedStream(raceUrl)).replay;
    assert.equal(seen.finalHash, whole.finalHash, 'the viewer ends on the host\'s final world');
    ok(`live race: joined at step ${seen.firstStep}, followed to the end (${seen.count} steps of ${seen.cars} cars drawn), final world ${seen.finalHash.slice(0, 16)}…`);
  });
}

export async function checkLiveArrival(browser) {
  // A car joins the live race 30.5 s in (inside a chunk), after the page
  // began following it: the page adds it when its chunk comes, with no
  // pose before its arrival, and follows the race to the host's end.
  const JOIN = 1830;
  // Once the first chunk is sealed: long before the car comes.
  await withLiveRace(browser, ['--cars', '2', '--join-after-s', '30.5'], 1, async (page, raceUrl) => {
    const seen = await page.evaluate(async () => {
      const v = window.viewer;
      while (!v.recording || v.recording.count === 0) await new Promise((r) => setTimeout(r, 20));
      const carsAtStart = v.recording.cars;
      await v.done;
      const rec = v.recording;
      // The steps at which the late car (car 2) has a pose.
      const posed = [];
      for (let i = 0; i < rec.count; i++) {
        if (Number.isFinite(rec.poses[(i * rec.cars + 2) * 8])) posed.push(rec.steps[i]);
      }
      return {
        carsAtStart,
        cars: rec.cars,
        meshes: v.scene.cars.length,
        options: document.querySelectorAll('#car option').length,
        firstStep: rec.steps[0],
        lastStep: rec.steps[rec.count - 1],
        posed: [posed[0], posed.length],
        finalHash: v.result.finalHash,
        error: document.querySelector('#error').hidden ? null : document.querySelector('#error').textContent,
      };
    });
    assert.equal(seen.error, null, `no error: ${seen.error}`);
    assert.equal(seen.carsAtStart, 2, 'the page began before the car came');
    assert.deepEqual([seen.cars, seen.meshes, seen.options], [3, 3, 3]);
    // Posed from its arrival to the end, not before.
    assert.deepEqual(seen.posed, [JOIN, seen.lastStep - JOIN + 1]);
    const whole = sk.readStream(await servedStream(raceUrl)).replay;
    assert.equal(whole.carCount, 3);
    assert.equal(seen.finalHash, whole.finalHash, 'the viewer ends on the host\'s final world');
    ok(`live race: a car that joined at step ${JOIN} was added to the page (3 cars drawn), posed from its arrival on (${seen.posed[1]} steps), final world ${seen.finalHash.slice(0, 16)}…`);
  });
}
