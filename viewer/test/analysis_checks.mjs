// The viewer's checks for what a race's viewer shows beyond playback, in
// headless Chromium: laps overlaid on a distance axis with the event
// list, clips (as a replay, a video and a link), and a game's replay
// drawn on the road its ground names.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';
import { execFileSync } from 'node:child_process';
import { bin, spectatorBin, work, goldenDir, ok, view, withViewer } from './harness.mjs';
import { startServer } from './browser.mjs';

/** Two laps of one car overlaid on a distance axis: picked with the
 * chart's lap pickers as a user would, the x axis is lap 2's distance
 * from the line, lap 1 is drawn beside it, and a click on the chart seeks
 * into lap 2. */
export async function checkLapOverlay(browser, race) {
  const server = await view([race.replay]);
  try {
    await withViewer(browser, server, `?car=${race.car}`, async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      await page.evaluate(() => window.viewer.done);
      await page.selectOption('#lap-a', '2');
      await page.selectOption('#lap-b', `${race.car}:1`);
      const chart = await page.evaluate(() => {
        const v = window.viewer;
        const panel = v.telemetry;
        const lap = v.recording.laps(v.car).find((e) => e.lap === 2);
        const first = v.recording.laps(v.car).find((e) => e.lap === 1);
        const xs = panel.plot.data[0];
        const delta = panel.plot.data[panel.plot.series.findIndex((s) => s.label?.startsWith('delta'))];
        return {
          delta: delta[delta.length - 1],
          difference: lap.lapTime - first.lapTime,
          legend: [...document.querySelectorAll('#chart .u-legend .u-label')].map((th) => th.textContent.trim()),
          first: xs[0],
          last: xs[xs.length - 1],
          samples: xs.length,
          length: v.recording.meta.track.length,
          start: lap.time - lap.lapTime,
          end: lap.time,
          lapTime: lap.lapTime,
        };
      });
      assert.ok(chart.legend.some((l) => l.startsWith('speed L2')) && chart.legend.some((l) => l.startsWith('speed L1')), `${chart.legend}`);
      assert.ok(chart.first >= 0 && chart.first < 1, `lap 2 starts at its line: ${chart.first} m`);
      assert.ok(Math.abs(chart.last - chart.length) < 1, `and ends a track length on: ${chart.last} of ${chart.length} m`);
      // The delta at the line is the difference of the lap times (to the
      // step the last sample leaves out).
      assert.ok(Math.abs(chart.delta - chart.difference) < 2 / 60, `delta at the line ${chart.delta} s, laps ${chart.difference} s apart`);
      const box = await page.locator('#chart .u-over').boundingBox();
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const t = await page.evaluate(() => window.viewer.clock.time);
      assert.ok(t > chart.start && t < chart.end, `a click half way along lap 2 seeks into it: ${t} in ${chart.start}–${chart.end}`);
      ok(`lap 2 (${chart.lapTime.toFixed(3)} s) and lap 1 of car ${race.car} overlaid on lap 2's distance (${chart.samples} samples, 0 to ${chart.last.toFixed(0)} m), delta at the line ${chart.delta.toFixed(3)} s for laps ${chart.difference.toFixed(3)} s apart; a click seeks to ${t.toFixed(2)} s, inside lap 2`);
      // Another car's lap against this one.
      const rival = await page.evaluate(() => [...document.querySelectorAll('#lap-b option')].map((o) => o.value).find((v) => v.endsWith(':2') && !v.startsWith(`${window.viewer.car}:`)));
      await page.selectOption('#lap-b', rival);
      const legend = await page.evaluate(() => [...document.querySelectorAll('#chart .u-legend .u-label')].map((th) => th.textContent.trim()));
      const rivalCar = rival.split(':')[0];
      assert.ok(legend.some((l) => l.startsWith(`speed car ${rivalCar} L2`)) && legend.some((l) => l.startsWith(`delta to car ${rivalCar} L2`)), `${legend}`);
      ok(`car ${rivalCar}'s lap 2 against car ${race.car}'s, with the delta`);
      // The event list: every event, then the followed car's only; a
      // click on its lap plays from 2 s before it.
      await page.locator('#events summary').click();
      const all = await page.locator('#events li').count();
      const held = await page.evaluate(() => window.viewer.recording.events.length);
      assert.equal(all, held, 'a row per event');
      const texts = await page.locator('#events li').allTextContents();
      const overtakes = texts.filter((t) => / passes car /.test(t)).length;
      assert.ok(overtakes > 0, 'twenty cars racing two laps pass each other');
      assert.ok(texts.some((t) => t.includes('the fastest yet')), 'lap records are marked');
      await page.locator('#events input[type=checkbox]').check();
      const mine = await page.locator('#events li').allTextContents();
      assert.ok(mine.length > 0 && mine.length < all, `${mine.length} of ${all}`);
      for (const text of mine) assert.match(text, new RegExp(`car ${race.car}\\b|cars (\\d+ and )?${race.car}\\b`), text);
      await page.locator('#events li[data-kind="lap"]').first().click();
      const after = await page.evaluate(() => {
        const v = window.viewer;
        const lap = v.recording.laps(v.car)[0];
        return { car: v.car, t: v.clock.time, expected: lap.time - 2 };
      });
      assert.equal(after.car, race.car);
      assert.ok(Math.abs(after.t - after.expected) < 1e-9, `${after.t} against ${after.expected}`);
      ok(`event list: ${all} events (${overtakes} overtakes), ${mine.length} naming car ${race.car}; a click on its first lap plays from 2 s before the crossing`);
    });
  } finally {
    server.child.kill();
  }
}


/**
 * What a WebM file holds, read from its EBML elements: the doc type, and
 * the frames (SimpleBlocks, or Blocks in BlockGroups) with their times in
 * s (the cluster's timecode plus the block's, at the default 1 ms scale).
 * Masters (Segment, Cluster, BlockGroup) are entered, even with the
 * unknown size MediaRecorder writes; every other element is skipped by
 * its size.
 */
function readWebm(bytes) {
  const vint = (at, keepMarker) => {
    const first = bytes[at];
    let length = 1;
    while (length <= 8 && !(first & (0x80 >> (length - 1)))) length += 1;
    let value = keepMarker ? first : first & (0xff >> length);
    for (let k = 1; k < length; k++) value = value * 256 + bytes[at + k];
    const unknown = !keepMarker && value === 2 ** (7 * length) - 1;
    return { value, length, unknown };
  };
  // EBML header, Segment, Cluster, BlockGroup.
  const MASTERS = new Set([0x1a45dfa3, 0x18538067, 0x1f43b675, 0xa0]);
  let at = 0;
  let cluster = 0;
  let docType = null;
  const frames = [];
  while (at < bytes.length) {
    const id = vint(at, true);
    const size = vint(at + id.length, false);
    const body = at + id.length + size.length;
    if (MASTERS.has(id.value)) {
      at = body;
      continue;
    }
    if (id.value === 0x4282) docType = Buffer.from(bytes.subarray(body, body + size.value)).toString();
    if (id.value === 0xe7) cluster = bytes.subarray(body, body + size.value).reduce((v, b) => v * 256 + b, 0);
    // A frame: a SimpleBlock, or a Block in a BlockGroup.
    if (id.value === 0xa3 || id.value === 0xa1) {
      const track = vint(body, false);
      const relative = (bytes[body + track.length] << 8) | bytes[body + track.length + 1];
      frames.push((cluster + (relative << 16 >> 16)) / 1000);
    }
    at = body + size.value;
  }
  return { docType, frames };
}

/** A clip marked on the timeline with [ and ] and downloaded with "clip":
 * a replay of those steps that verifies bit for bit on its own and ends on
 * the world the whole replay has at that step. */
export async function checkClip(browser) {
  const file = join(goldenDir, 'mixed_field.skr');
  const server = await view([file]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      await page.evaluate(() => window.viewer.done);
      await page.evaluate(() => window.viewer.seekStep(600));
      await page.locator('#clip-in').click();
      await page.evaluate(() => window.viewer.seekStep(1500));
      await page.locator('#clip-out').click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#clip').click()]);
      const saved = join(work, download.suggestedFilename());
      await download.saveAs(saved);
      const clip = sk.decodeReplay(new Uint8Array(readFileSync(saved)));
      assert.equal(clip.stepCount, 900);
      const report = sk.verifyReplay(sk.encodeReplay(clip));
      assert.equal(report.desyncs, 0);
      const whole = sk.decodeReplay(new Uint8Array(readFileSync(file)));
      const player = new sk.ReplayPlayer(sk.createReplayWorld(whole), whole);
      while (player.step < 1500) player.advance();
      assert.equal(report.finalHash, player.worldHash(), 'the clip ends on the whole race\'s world at step 1500');
      ok(`clip of steps 600–1500 downloaded as ${download.suggestedFilename()}: ${clip.stepCount} steps, 0 desyncs alone, ending on the whole race's world at step 1500`);
      // Two seconds of the view as a video, played at 1×.
      await page.evaluate(() => window.viewer.seekStep(600));
      await page.locator('#clip-in').click();
      await page.evaluate(() => window.viewer.seekStep(720));
      await page.locator('#clip-out').click();
      const [video] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.locator('#clip-video').click()]);
      const webm = join(work, video.suggestedFilename());
      await video.saveAs(webm);
      const { docType, frames } = readWebm(new Uint8Array(readFileSync(webm)));
      assert.equal(docType, 'webm');
      const span = frames.length > 1 ? Math.max(...frames) - Math.min(...frames) : 0;
      assert.ok(frames.length >= 10, `${frames.length} frames`);
      assert.ok(span > 1.5 && span < 2.6, `the video spans ${span} s for a 2 s clip at 1×`);
      ok(`video of steps 600–720 (2 s) as ${video.suggestedFilename()}: WebM, ${frames.length} frames over ${span.toFixed(2)} s`);
      await page.locator('#clip-link').click();
      const link = await page.evaluate(() => location.search);
      assert.match(link, /clip=600-720/);
    });
    // The link opens with the clip marked, at its first step.
    await withViewer(browser, server, '?clip=600-720', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      await page.evaluate(() => window.viewer.done);
      await page.waitForFunction(() => window.viewer.clips.from === 600);
      const opened = await page.evaluate(() => {
        const v = window.viewer;
        return { from: v.clips.from, to: v.clips.to, step: v.recording.stepOf(v.recording.sampleAt(v.clock.time)), ready: !document.querySelector('#clip').disabled };
      });
      assert.deepEqual(opened, { from: 600, to: 720, step: 600, ready: true });
      ok('the clip\'s link (?clip=600-720) opens with steps 600–720 marked, at step 600');
    });
  } finally {
    server.child.kill();
  }
}

/** A replay a game recorded on a built-in track's surface without naming
 * the track: the page draws the road from the replay's ground, says why
 * no lap is timed, and shows no standings; the plane's replay of the same
 * cars says there is no road. */
export async function checkGroundRoad(browser) {
  const record = (file, onSurface) => {
    const world = new sk.World();
    if (onSurface) world.setTrackGround('brandwood');
    const track = new sk.TrackView('brandwood');
    for (let slot = 0; slot < 2; slot++) world.setDriver(world.addPresetCar('rwd_sports', sk.gridPose(track, slot)), 'brandwood');
    const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, metadata: { player: 'a game' } });
    for (let step = 0; step < 240; step++) recorder.step(world, 1 / 60);
    writeFileSync(file, sk.encodeReplay(recorder.finish(world)));
    world.free();
  };
  const surface = join(work, 'surface-no-track.skr');
  const plane = join(work, 'plane-no-track.skr');
  record(surface, true);
  record(plane, false);
  const server = await view([surface, plane]);
  try {
    for (const [k, road, pattern] of [
      [0, true, /recorded on brandwood's surface, drawn from its ground/],
      [1, false, /recorded on plane z = 0: the cars are drawn on open ground, without a road/],
    ]) {
      await withViewer(browser, server, `?src=/files/${k}/x`, async (page, outcome) => {
        assert.ok(outcome.ok, outcome.error);
        const shown = await page.evaluate(() => {
          const v = window.viewer;
          return {
            notice: document.querySelector('#notice').textContent,
            meshes: v.scene.scene.children.length,
            standings: document.querySelector('#standings').hidden,
            cars: v.recording.cars,
          };
        });
        assert.match(shown.notice, pattern);
        assert.ok(shown.standings, 'no standings without lap timing');
        // Ground, lights and two cars, plus the road's surface, kerbs,
        // centre line and start line when there is one.
        const base = await page.evaluate(() => 3 + window.viewer.recording.cars);
        assert.equal(shown.meshes > base, road, `${shown.meshes} objects in the scene`);
        ok(`a game's replay on ${road ? "brandwood's surface" : 'the plane'} without a track name: ${road ? 'the road drawn from its ground' : 'no road'}, and the page says "${shown.notice}"`);
      });
    }
  } finally {
    server.child.kill();
  }
}


/**
 * A browser game's race on a mesh ground of its own (a shallow valley
 * with an asphalt pad), recorded with the npm package under node:
 * carried in the replay (`carryGround`), it verifies natively and the
 * viewer, which has never seen that ground, re-simulates it and draws it
 * in its surfaces' colours; not carried, the viewer says which ground it
 * needs, and plays it with its ground file (`.skgd`) beside it, as
 * `skidpad verify --ground` does.
 */
export async function checkCarriedGround(browser) {
  const record = (file, carryGround) => {
    const world = new sk.World();
    // 41 × 41 vertices 5 m apart, two triangles a cell; asphalt within 12
    // cells of the middle, grass beyond.
    const side = 41;
    const vertices = new Float64Array(side * side * 3);
    for (let k = 0; k < side * side; k++) {
      const [x, y] = [(k % side) - 20, Math.floor(k / side) - 20];
      vertices.set([5 * x, 5 * y, 0.004 * (x * x + y * y) + 0.2 * Math.sin(x / 3)], 3 * k);
    }
    const triangles = [];
    const surfaces = [];
    for (let j = 0; j < side - 1; j++) {
      for (let i = 0; i < side - 1; i++) {
        const k = j * side + i;
        triangles.push(k, k + 1, k + side + 1, k, k + side + 1, k + side);
        const surface = Math.hypot(i - 19.5, j - 19.5) < 12 ? 0 : 3;
        surfaces.push(surface, surface);
      }
    }
    world.setMeshGround(vertices, Uint32Array.from(triangles), Uint8Array.from(surfaces));
    for (const [y, steer] of [[-15, 0.12], [15, -0.1]]) {
      const car = world.addPresetCar('fwd_hatchback', { x: 0, y, yaw: 0, speed: 8 });
      world.setInput(car, { throttle: 0.3, steer });
    }
    const recorder = new sk.ReplayRecorder(world, { keyframeEvery: 60, carryGround, metadata: { player: 'a game' } });
    for (let step = 0; step < 600; step++) recorder.step(world, 1 / 60);
    const replay = recorder.finish(world);
    writeFileSync(file, sk.encodeReplay(replay));
    // The same race as a stream, for a spectator service to publish.
    if (carryGround) writeFileSync(join(followed, 'own-ground.sks'), sk.encodeStream(replay));
    if (!carryGround) writeFileSync(groundFile, world.groundFile());
    world.free();
  };
  const carried = join(work, 'own-ground-carried.skr');
  const bare = join(work, 'own-ground-bare.skr');
  const groundFile = join(work, 'own-ground.skgd');
  const followed = join(work, 'followed-streams');
  mkdirSync(followed, { recursive: true });
  record(carried, true);
  record(bare, false);
  // Recorded in wasm, verified by the native core from the file alone.
  const verdict = execFileSync(bin, ['verify', carried]).toString();
  assert.match(verdict, /0 desyncs/, verdict);
  const server = await view([carried, bare]);
  try {
    await withViewer(browser, server, '?src=/files/0/x', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const shown = await page.evaluate(() => ({
        notice: document.querySelector('#notice').textContent,
        coloured: window.viewer.scene.scene.children.filter((c) => c.material?.vertexColors).length,
        triangles: window.viewer.scene.scene.children.find((c) => c.material?.vertexColors)?.geometry.attributes.position.count / 3,
        desyncs: window.viewer.recording.desyncs ?? 0,
      }));
      assert.match(shown.notice, /the ground it was recorded on came with it \(a triangle mesh of 3200 triangles\), drawn from it/);
      assert.equal(shown.coloured, 1, 'the carried ground drawn once');
      assert.equal(shown.triangles, 2 * 40 * 40, 'two triangles a cell');
      ok(`a browser game's race on a mesh ground of its own, carried in the replay: verified natively (${verdict.trim().split('\n')[0].slice(0, 60)}…), drawn in the viewer (${shown.triangles} triangles in its surfaces' colours)`);
    });
    await withViewer(browser, server, '?src=/files/1/x', async (page, outcome) => {
      assert.ok(!outcome.ok, 'a replay on a ground it does not carry cannot be re-simulated');
      assert.match(outcome.error, /recorded on the triangle mesh of 3200 triangles/);
      assert.match(outcome.error, /it does not carry that ground\. Open the game's ground file \(\.skgd\) with it: drop both on the page, or `skidpad view x GROUND\.skgd`/);
      const status = await page.textContent('#status');
      assert.match(status, /^open a replay/, 'not "loading" for ever');
      ok(`not carried, the viewer says: "${outcome.error}", and is ready for another file`);
    });
  } finally {
    server.child.kill();
  }
  // Published live by a spectator service that follows a folder of
  // streams: the header piece carries the ground, the page draws it.
  const service = await startServer(spectatorBin, ['--listen', '127.0.0.1:0', '--cars', '1', '--laps', '1', '--pace', '8', '--follow', followed]);
  const live = await view([]);
  try {
    const raceUrl = `${service.url.match(/http:\/\/127\.0\.0\.1:\d+/)[0]}/races/own-ground`;
    for (let tries = 0; !(await fetch(raceUrl + '/range')).ok; tries++) {
      assert.ok(tries < 100, 'the followed stream is offered');
      await new Promise((r) => setTimeout(r, 100));
    }
    await withViewer(browser, live, `?live=${encodeURIComponent(raceUrl)}`, async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const shown = await page.evaluate(() => ({
        source: window.viewer.recording.meta.source,
        notice: document.querySelector('#notice').textContent,
        triangles: window.viewer.scene.scene.children.find((c) => c.material?.vertexColors)?.geometry.attributes.position.count / 3,
      }));
      assert.equal(shown.source, 'live');
      assert.match(shown.notice, /came with it \(a triangle mesh of 3200 triangles\)/);
      assert.equal(shown.triangles, 2 * 40 * 40);
      ok(`the same race streamed through a spectator service (--follow): the header piece carries the ground, followed live to the end and drawn (${shown.triangles} triangles)`);
    });
  } finally {
    live.child.kill();
    service.child.kill();
  }
  // With its ground file beside it (`skidpad view REPLAY GROUND.skgd`, or
  // both dropped on the page), it plays and is drawn.
  const beside = await view([groundFile, bare]);
  try {
    await withViewer(browser, beside, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      const notice = await page.evaluate(() => document.querySelector('#notice').textContent);
      assert.match(notice, /ground file own-ground.skgd/);
      assert.match(notice, /is the ground file own-ground.skgd opened with it \(a triangle mesh of 3200 triangles\)/);
      ok('with its ground file (.skgd) beside it, the same replay plays and its ground is drawn');
    });
    const verdict2 = execFileSync(bin, ['verify', bare, '--ground', groundFile]).toString();
    assert.match(verdict2, /0 desyncs/, verdict2);
  } finally {
    beside.child.kill();
  }
}
