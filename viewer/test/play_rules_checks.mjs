// The play page says what happened, driven with real key events only:
// a car driven off the road marks its lap invalid on the HUD at once, in
// the race layer's words; T puts it back on the centre line (recorded in
// the replay as a reset); a tap of E right after reversing takes the car
// out of reverse even when the key is up again before the next physics
// step; and nothing speaks of force feedback to a keyboard player.

import assert from 'node:assert/strict';
import { ok } from './harness.mjs';
import { openPlay } from './play_checks.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

const shown = (page) => page.evaluate(() => window.skidpadPlay.shown());
const until = (page, test, arg) => page.waitForFunction(test, arg, { timeout: 30_000 });

/** `base`: the leaderboard serving the page. */
export async function checkLapRules(browser, base) {
  const { page, logs } = await openPlay(browser.context, base);
  try {
    await page.click('#start');
    await until(page, () => window.skidpadPlay.shown().state === 'driving');
    const waiting = await page.textContent('#hud-delta');
    assert.equal(waiting, 'after your first valid lap', 'the HUD says when a ghost comes');
    assert.equal(await page.isVisible('#ffb'), false, 'nothing about force feedback to a keyboard player');

    // Off the road to the left, flat out, until the HUD says the lap is lost.
    await page.keyboard.down('ArrowUp');
    await page.keyboard.down('ArrowLeft');
    await until(page, () => !document.querySelector('#hud-invalid').hidden);
    await page.keyboard.up('ArrowLeft');
    await page.keyboard.up('ArrowUp');
    const said = await page.textContent('#hud-invalid');
    assert.match(said, /^lap 1 invalid: left the track at t = \d+\.\d{3} s \(\d+\.\d m from the centre line, limit \d+\.\d m\)$/);
    const track = new sk.TrackView('brandwood');
    const limit = Number(said.match(/limit (\d+\.\d) m/)[1]);
    assert.equal(limit, Math.round((track.width / 2 + track.kerbWidth) * 10) / 10, 'the limit is the road edge plus the kerb');

    // T, pressed and released at once: the car is back on the line.
    await page.keyboard.press('KeyT');
    await until(page, () => {
      const h = window.skidpadPlay.shown().hud;
      return h && Math.abs(h.speed) < 0.5;
    });
    const { pose } = await shown(page);
    const [, offset] = track.locate(pose[0], pose[1]);
    assert.ok(Math.abs(offset) < 0.5, `reset onto the centre line (offset ${offset.toFixed(2)} m)`);
    assert.match(await page.textContent('#hud-invalid'), /lap 1 invalid: left the track/, 'the lap stays lost after the reset');

    // Reverse (Q), back up to about 15 km/h, then a tap of E: drive.
    await page.keyboard.press('KeyQ');
    await until(page, () => window.skidpadPlay.shown().hud?.gear === -1);
    await page.keyboard.down('ArrowUp');
    // (The pose's speed is a magnitude, backwards too.)
    await until(page, () => window.skidpadPlay.shown().hud?.speed > 4);
    await page.keyboard.up('ArrowUp');
    await page.keyboard.press('KeyE');
    await until(page, () => window.skidpadPlay.shown().hud?.gear > 0);
    const backing = (await shown(page)).hud.speed;
    ok(`play: off the road the HUD said "${said}" at once; T put the car back ${Math.abs(offset).toFixed(2)} m from the centre line; a tap of E at ${(backing * 3.6).toFixed(0)} km/h in reverse selected drive`);

    await page.click('#finish');
    await until(page, () => window.skidpadPlay.shown().state === 'finished');
    const bytes = await page.evaluate(() => Array.from(window.skidpadPlay.replay()));
    const replay = sk.decodeReplay(Uint8Array.from(bytes));
    const resets = replay.resets();
    assert.equal(resets.length, 1, `the replay records the reset: ${JSON.stringify(resets)}`);
    const errors = logs.filter((l) => /error/i.test(l));
    assert.deepEqual(errors, [], 'no console or page errors');
    ok(`play: the replay records the reset at step ${resets[0].step ?? JSON.stringify(resets[0])}`);

    // "open in the viewer": the run, named for what it is, asking the
    // leaderboard's server for nothing it does not have.
    const [viewer] = await Promise.all([page.context().waitForEvent('page'), page.click('#open')]);
    const failed = [];
    viewer.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
    await viewer.waitForFunction(() => window.viewerReady !== undefined, undefined, { timeout: 30_000 });
    await viewer.evaluate(async () => {
      await window.viewerReady;
      await window.viewer.done;
    });
    const status = await viewer.textContent('#status');
    assert.match(status, /^player on brandwood \(rwd_sports\): 1 cars, .* 0 desyncs/);
    assert.deepEqual(failed, [], 'no request of the viewer failed');
    ok(`play: "open in the viewer" shows "${status}"`);
    await viewer.close();
  } catch (e) {
    e.message += `\npage console:\n${logs.slice(-20).join('\n')}`;
    throw e;
  } finally {
    await page.close();
  }
}
