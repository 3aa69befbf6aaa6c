// The play page on the tracks and cars its leaderboard registered
// (`--boards`): a game's own circuit (Brands Hatch from the TUM database)
// with a class of its own car is offered beside the built-in track, a run
// on it is recorded with the track's definition, and the leaderboard
// verifies it on the registered track and ranks it in the class.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, root } from './harness.mjs';
import { leaderboard, openPlay } from './play_checks.mjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

export async function checkOwnBoards(browser) {
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-boards-'));
  const csv = readFileSync(join(root, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch');
  writeFileSync(join(dir, 'brands.json'), circuit.definitionJson());
  const key = circuit.fingerprint;
  circuit.free();
  const car = { ...JSON.parse(sk.presetDefinition('rwd_sports')), name: 'Club racer' };
  writeFileSync(join(dir, 'club_racer.json'), JSON.stringify(car));
  const boards = [
    { track: 'brandwood', max_steps: 40000 },
    { track_file: 'brands.json', max_steps: 40000, classes: { club: ['club_racer.json'] } },
  ];
  writeFileSync(join(dir, 'boards.json'), JSON.stringify(boards));
  const board = await leaderboard(['--boards', join(dir, 'boards.json')]);
  try {
    const { page } = await openPlay(browser.context, board.url);
    const offered = await page.$$eval('#track option', (all) => all.map((o) => [o.value, o.textContent]));
    assert.deepEqual(offered, [['brandwood', 'Brandwood Park'], [key, 'Brands Hatch']], JSON.stringify(offered));
    await page.selectOption('#track', key);
    const cars = await page.$$eval('#car option', (all) => all.map((o) => [o.value, o.textContent]));
    assert.deepEqual(cars, [['club/0', 'Club racer (club)']], JSON.stringify(cars));
    // Four seconds from the grid, flat out.
    const script = Array.from({ length: 240 }, () => ({ throttle: true }));
    await page.evaluate((s) => window.skidpadPlay.startScripted(s), script);
    await page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 60_000 });
    const driven = await page.evaluate(() => window.skidpadPlay.shown().hud.speed);
    await page.click('#submit');
    await page.waitForFunction(() => window.skidpadPlay.shown().verdict !== null, undefined, { timeout: 120_000 });
    const { verdict } = await page.evaluate(() => window.skidpadPlay.shown());
    assert.equal(verdict.status, 'verified', JSON.stringify(verdict));
    const run = await (await fetch(`${board.url}/runs/${verdict.id}`)).json();
    assert.equal(run.outcome.track, key, 'verified on the registered circuit');
    assert.equal(run.outcome.class, 'club', 'ranked in the board\'s class');
    ok(`boards: the play page offered the leaderboard's own circuit (Brands Hatch, ${key.slice(0, 8)}…) and class (Club racer), drove it (${(driven * 3.6).toFixed(0)} km/h after 4 s), and the leaderboard verified the run on that circuit in class club`);
    await page.close();
  } finally {
    board.child.kill('SIGTERM');
  }
}
