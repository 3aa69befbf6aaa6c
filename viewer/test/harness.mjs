// Shared by the viewer's Chromium checks: paths, the native tools the
// checks compare with (`skidpad export`, the 20-car demo), serving files
// with `skidpad view`, reading what the page shows, and screenshots.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openViewer, startServer } from './browser.mjs';
import assert from 'node:assert/strict';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import * as sk from '../../bindings-wasm/pkg/node/skidpad_wasm.js';

export const here = fileURLToPath(new URL('.', import.meta.url));
export const root = join(here, '..', '..');
export const bin = process.env.SKIDPAD_BIN ?? join(root, 'target/release/skidpad');
export const spectatorBin = process.env.SKIDPAD_SPECTATOR_BIN ?? join(root, 'target/release/skidpad-spectator');
export const work = join(root, 'target/viewer-test');
export const references = join(here, 'reference');
export const update = process.env.SKIDPAD_UPDATE_SCREENSHOTS === '1';

/** Pixels that may differ from a reference screenshot, as a fraction:
 * SwiftShader is deterministic on one machine, but another CPU or
 * Chromium release may round an edge differently. */
export const SCREENSHOT_TOLERANCE = 0.01;
export const POSE_FIELDS = ['x', 'y', 'z', 'yaw', 'pitch', 'roll'];

export const VERSION = sk.simulationVersion();
export const goldenDir = join(root, `golden/v${VERSION}`);

mkdirSync(work, { recursive: true });

export function ok(message) {
  console.log(`ok  ${message}`);
}

/** `skidpad export` of a replay, natively: per step, per car, the
 * channels named in its `channels`. */
export function nativeExport(file) {
  return JSON.parse(execFileSync(bin, ['export', file], { maxBuffer: 1 << 30 }).toString());
}

/** Races the 20-car demo once (cached under target/) and returns its
 * files and which car and lap its ghost is. */
export function demo20() {
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

export async function view(files) {
  return startServer(bin, ['view', '--port', '0', ...files]);
}

export async function withViewer(browser, server, query, body) {
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
export function posesAtStep(page, step) {
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
export function assertPoseEquals(shown, values, index, step, car) {
  POSE_FIELDS.forEach((field, f) => {
    assert.equal(shown.poses[car][f], values[index[field]], `step ${step} car ${car} ${field}`);
  });
}

export function comparePng(name, png) {
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

/** The `[r, g, b]` of a PNG's pixel at fractions `fx`, `fy` of its width
 * and height. */
export function pixelAt(png, fx, fy) {
  const image = PNG.sync.read(png);
  const at = (Math.floor(fy * (image.height - 1)) * image.width + Math.floor(fx * (image.width - 1))) * 4;
  return [image.data[at], image.data[at + 1], image.data[at + 2]];
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
