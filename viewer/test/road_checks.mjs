// The road is drawn in every frame: a lap on each built-in track and on
// an imported circuit, and the first replay format's lap at step 0 (where
// the road used to vanish), each seen from every camera. A frame fails
// when part of the road its camera should see is drawn as another
// surface (`Scene.roadCoverage`: surfaces fighting in depth). Not one
// pixel may be: the road is drawn the same way in both of the measure's
// pictures, so anything but a kerb or marking over it is a fight.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { bin, ok, root, view, withViewer, work } from './harness.mjs';

/** Frames measured per lap of a built-in track, spread evenly over it;
 * the imported circuit, drawn by the same code, gets a quarter (the
 * check's cost is in CI's budget). */
const FRAMES_PER_LAP = 1000;
const FRAMES_IMPORTED = 250;

/** Cameras the frames cycle through (the free camera starts where the
 * orbit one does, moved only by a mouse). */
const CAMERAS = ['chase', 'cockpit', 'tv', 'orbit'];

export async function checkRoadAlwaysDrawn(browser) {
  const laps = [
    ['brandwood', 'brandwood', FRAMES_PER_LAP],
    ['hillcrest', 'hillcrest', FRAMES_PER_LAP],
    ['Brands Hatch, imported', join(root, 'track-import/tests/data/tum/BrandsHatch.csv'), FRAMES_IMPORTED],
  ];
  for (const [name, track, count] of laps) {
    const frames = await measure(browser, lapOn(name, track), count, 1);
    assertDrawn(name, frames);
  }
  // Every camera at step 0, where the road used to vanish every time.
  const first = await measure(browser, join(root, 'golden/v1/flat_lap.skr'), CAMERAS.length, 0);
  assertDrawn('golden/v1/flat_lap.skr at step 0', first);
}

/** One AI car's lap on `track` (cached under target/). */
function lapOn(name, track) {
  const out = join(work, `lap-${name.replace(/\W+/g, '-')}`);
  if (!existsSync(join(out, 'demo.skr'))) {
    execFileSync(bin, ['demo', '--cars', '1', '--laps', '1', '--track', track, '--out', out]);
  }
  return join(out, 'demo.skr');
}

/** `count` frames of `file`'s replay over `share` of its length (0: all
 * at its start), the cameras taking turns: `[t, camera, road, missing]`. */
async function measure(browser, file, count, share) {
  const server = await view([file]);
  try {
    return await withViewer(browser, server, '', async (page, outcome) => {
      assert.ok(outcome.ok, outcome.error);
      return page.evaluate(
        ({ count, share, cameras }) => {
          const v = window.viewer;
          v.clock.pause();
          const frames = [];
          for (let i = 0; i < count; i++) {
            const camera = cameras[i % cameras.length];
            v.cameras.setMode(camera);
            const t = (i / count) * share * v.recording.end;
            v.draw(t);
            const { road, missing } = v.scene.roadCoverage(v.cameras.camera);
            frames.push([t, camera, road, missing]);
          }
          v.cameras.setMode('chase');
          return frames;
        },
        { count, share, cameras: CAMERAS },
      );
    });
  } finally {
    server.child.kill();
  }
}

function assertDrawn(name, frames) {
  const seeing = frames.filter(([, , road]) => road > 0);
  const worst = seeing.reduce((w, f) => (f[3] / f[2] > w[3] / w[2] ? f : w), seeing[0]);
  const hidden = seeing.filter(([, , road, missing]) => missing > 0);
  assert.ok(seeing.length > frames.length / 2, `${name}: the road was in view in only ${seeing.length} of ${frames.length} frames`);
  assert.equal(
    hidden.length,
    0,
    `${name}: the road is hidden in ${hidden.length} of ${frames.length} frames, first at t = ${hidden[0]?.[0].toFixed(2)} s (${hidden[0]?.[1]} camera, ${hidden[0]?.[3]} of ${hidden[0]?.[2]} road pixels)`,
  );
  ok(
    `${name}: the road drawn in all ${frames.length} frames (in view in ${seeing.length}; worst ${worst[3]} of ${worst[2]} road pixels shown as another surface, ${worst[1]} camera)`,
  );
}
