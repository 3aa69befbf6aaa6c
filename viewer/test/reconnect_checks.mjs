// The race page on a game's own track and car, surviving a dropped link,
// in headless Chromium against a real `skidpad-netplay serve` and link
// emulator. The race is on Brands Hatch imported from the TUM database
// with an own car (`--track FILE --car FILE`): the page reads both from
// the map message (the wasm `RaceMap`) and predicts its car exactly (it
// races alone, so any miss would be a different track or car). Then the
// check kills the link process (the page's socket ends without a close
// frame), the page says it is reconnecting while the server's AI drives
// its car, and once a link is back on the same port the page takes the
// same seat and car back, further down the road, and races on.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './browser.mjs';
import { ok, root, view } from './harness.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

const netplayBin = process.env.SKIDPAD_NETPLAY_BIN ?? join(root, 'target/debug/skidpad-netplay');
const PACE = 2;

/** A loopback port nobody listens on now. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

export async function checkReconnect(browser) {
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-reconnect-'));
  const tokens = join(dir, 'tokens.txt');
  writeFileSync(tokens, 'token-ann\n');
  const csv = readFileSync(join(root, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch');
  const trackFile = join(dir, 'brands.json');
  writeFileSync(trackFile, circuit.definitionJson());
  circuit.free();
  const car = { ...JSON.parse(sk.presetDefinition('rwd_sports')), name: 'Club racer' };
  const carFile = join(dir, 'club_racer.json');
  writeFileSync(carFile, JSON.stringify(car));
  const serve = ['serve', '--listen', '127.0.0.1:0', '--tokens', tokens, '--laps', '3', '--pace', String(PACE), '--track', trackFile, '--car', carFile];
  const server = await startServer(netplayBin, serve, { RUST_LOG: 'warn' });
  const address = server.url.replace('race at ws://', '').replace('/race', '');
  const port = await freePort();
  const linkArgs = ['link', '--listen', `127.0.0.1:${port}`, '--to', address, '--latency-ms', '20'];
  let link = await startServer(netplayBin, linkArgs, { RUST_LOG: 'warn' });
  const pages = await view([]);
  browser.expectErrors(new RegExp(`WebSocket connection to 'ws://127\\.0\\.0\\.1:${port}/race' failed`), 'the check cut the link');
  const page = await browser.context.newPage();
  try {
    await page.setViewportSize({ width: 480, height: 320 });
    await page.goto(`${pages.url}race?server=${encodeURIComponent(`ws://127.0.0.1:${port}/race`)}&token=token-ann&name=ann&pace=${PACE}`);
    const shown = () => page.evaluate(() => window.skidpadRace.shown());
    await page.waitForFunction(() => window.skidpadRace?.shown().state === 'racing', undefined, { timeout: 60_000 });
    const before = await shown();
    const ownRace = await page.$eval('#status', (e) => e.textContent);
    assert.match(ownRace, /on Brands Hatch/);
    // The link goes: no close frame reaches either end.
    link.child.kill('SIGKILL');
    await page.waitForFunction(() => window.skidpadRace.shown().state === 'reconnecting', undefined, { timeout: 30_000 });
    const status = await page.$eval('#status', (e) => e.textContent);
    assert.match(status, /the link dropped: reconnecting/);
    await page.waitForTimeout(2000);
    link = await startServer(netplayBin, linkArgs, { RUST_LOG: 'warn' });
    await page.waitForFunction(() => window.skidpadRace.shown().reconnected === 1 && window.skidpadRace.shown().state === 'racing', undefined, { timeout: 30_000 });
    await page.waitForTimeout(500);
    const after = await shown();
    assert.equal(after.seat, before.seat, 'the same seat');
    await page.waitForFunction(() => window.skidpadRace.shown().stats?.checked > 60, undefined, { timeout: 30_000 });
    const { stats } = await shown();
    assert.equal(stats.mispredicted, 0, `the page predicts the own car on the own track exactly: ${JSON.stringify(stats)}`);
    const driven = Math.hypot(after.pose[0] - before.pose[0], after.pose[1] - before.pose[1]);
    assert.ok(driven > 10, `the AI drove the car while the link was down: ${driven.toFixed(1)} m`);
    ok(`race page on an own track and car (Brands Hatch, "Club racer"): ${stats.checked} states predicted exactly; the link cut, the page said "${status}", and came back to seat ${after.seat}'s car ${driven.toFixed(0)} m further on, racing`);
  } finally {
    await page.close();
    for (const child of [link.child, server.child, pages.child]) child.kill();
  }
}
