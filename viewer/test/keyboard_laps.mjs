// How often a keyboard driver finishes a valid lap on the play page: RUNS
// fresh sessions on brandwood, each driven by the checks' scripted driver
// (real key events only, looking at what the page shows), each given two
// laps to set a valid one. Prints every lap with why it was thrown away,
// and fails below 4 valid of 5 runs. A measurement, not part of
// `cargo xtask test` (five laps take five minutes of real time):
//
//   cargo build -p skidpad-leaderboard && cargo xtask wasm
//   node viewer/test/keyboard_laps.mjs            (RUNS=5 by default)

import assert from 'node:assert/strict';
import { launch } from './browser.mjs';
import { drive, leaderboard, openPlay } from './play_checks.mjs';
import { invalidity } from '../src/laps.mjs';

const RUNS = Number(process.env.RUNS ?? 5);

const browser = await launch();
const board = await leaderboard();
let valid = 0;
try {
  for (let run = 1; run <= RUNS; run++) {
    const { page } = await openPlay(browser.context, board.url);
    await page.click('#start');
    await page.waitForFunction(() => window.skidpadPlay.shown().state === 'driving', undefined, { timeout: 30_000 });
    const state = await drive(page, 2, 400);
    const laps = state.laps.map((l) => `lap ${l.lap} ${l.time.toFixed(3)} s${invalidity(l)}`);
    const clean = state.laps.some((l) => l.valid);
    valid += clean ? 1 : 0;
    console.log(`run ${run}: ${clean ? 'valid' : 'no valid lap'}: ${laps.join(' · ') || 'no lap completed'} (${state.resets} resets)`);
    await page.close();
  }
} finally {
  board.child.kill('SIGTERM');
  await browser.close();
}
console.log(`${valid} of ${RUNS} runs finished a valid lap on brandwood`);
assert.ok(valid >= Math.ceil((RUNS * 4) / 5), `${valid} of ${RUNS} runs set a valid lap (at least 4 in 5 wanted)`);
