// Whole pages as a player sees them, at 1280×800 and 800×480: the viewer
// at the start, the middle and the end of a lap, and the play page before
// "start" (the track previewed with the car on pole) and after a scripted
// run. Each is compared with a reference looked at when it was written
// (SKIDPAD_UPDATE_SCREENSHOTS=1), and at every size the 3D view keeps at
// least half the window.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { comparePng, goldenDir, ok, view, withViewer } from './harness.mjs';
import { openPlay } from './play_checks.mjs';

const SIZES = [[1280, 800], [800, 480]];

/** The 3D view's share of the window's height. */
async function viewShare(page, height) {
  const canvas = await page.evaluate(() => document.querySelector('canvas').getBoundingClientRect().height);
  return canvas / height;
}

function assertHalf(name, share) {
  assert.ok(share >= 0.5, `${name}: the 3D view is ${(share * 100).toFixed(0)} % of the window's height (at least half wanted)`);
}

export async function checkPages(browser, base) {
  const server = await view([join(goldenDir, 'flat_lap.skr')]);
  try {
    await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      for (const [width, height] of SIZES) {
        await page.setViewportSize({ width, height });
        const share = await viewShare(page, height);
        for (const [moment, step] of [['start', 0], ['mid', 2400], ['end', 4800]]) {
          await page.evaluate((s) => {
            const v = window.viewer;
            v.clock.pause();
            v.seekStep(s);
          }, step);
          // Two frames: the page's own loop draws the seeked step.
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          comparePng(`page_view_${moment}_${width}`, await page.screenshot());
        }
        assertHalf(`viewer at ${width}×${height}`, share);
        ok(`viewer at ${width}×${height}: start, mid-lap and end match their references; the 3D view is ${(share * 100).toFixed(0)} % of the height`);
      }
    });
  } finally {
    server.child.kill();
  }

  for (const [width, height] of SIZES) {
    const { page } = await openPlay(browser.context, base);
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(500);
    comparePng(`page_play_start_${width}`, await page.screenshot());
    const share = await viewShare(page, height);
    // Ten seconds of a scripted run down the straight; the page stops on
    // its last step, the same picture every time.
    const script = Array.from({ length: 600 }, (_, k) => ({ throttle: true, right: k > 300 && k < 330 }));
    await page.evaluate((s) => window.skidpadPlay.startScripted(s), script);
    await page.waitForFunction(() => window.skidpadPlay.shown().state === 'finished', undefined, { timeout: 60_000 });
    await page.waitForTimeout(500);
    comparePng(`page_play_finished_${width}`, await page.screenshot());
    assertHalf(`play page at ${width}×${height}`, share);
    ok(`play page at ${width}×${height}: before start and after a run match their references; the 3D view is ${(share * 100).toFixed(0)} % of the height`);
    await page.close();
  }
}
