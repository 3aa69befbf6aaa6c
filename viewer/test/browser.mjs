// Shared plumbing of the viewer's Chromium test: start `skidpad view` (the
// real server a user runs) and a headless Chromium driven by
// playwright-core, with the flags that keep it off the network.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.SKIDPAD_CHROMIUM ?? '/usr/bin/chromium';

/** Starts a process and resolves with it and the first line it prints
 * (a URL, for `skidpad view --port 0` and the spectator service). */
export function startServer(command, args, env = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      // `log()`: what it printed to stderr so far, for failure messages.
      if (out.includes('\n')) resolve({ child, url: line.trim(), log: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${stderr}`)));
  });
}

/** A headless Chromium with a fresh profile; `close()` removes both. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'skidpad-viewer-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // WebGL on the CPU (SwiftShader), the same pixels on every run.
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      // Two players in one browser (the race check): a page behind
      // another keeps its timers and frames at full rate, as a window of
      // its own would.
      '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
    ],
  });
  // Every console error and uncaught page error of every page, for the
  // run's end: a page that says nothing wrong to its user must say
  // nothing wrong to its console either.
  const errors = [];
  context.on('page', (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push({ url: page.url(), text: m.text() });
    });
    page.on('pageerror', (e) => errors.push({ url: page.url(), text: `uncaught: ${e.message}` }));
  });
  // Errors a check causes on purpose (a refused submission's 4xx that the
  // page shows its user), each with why.
  const expected = [];
  return {
    context,
    errors,
    /** Says that console errors matching `pattern` are a check's own
     * doing (`why`), not the page's. */
    expectErrors(pattern, why) {
      expected.push({ pattern, why });
    },
    /** The console and page errors no check expected. */
    unexpectedErrors() {
      return errors.filter((e) => !expected.some(({ pattern }) => pattern.test(e.text)));
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` in a new page and waits until the viewer finished
 * re-simulating (or failed), or with `untilDone` false only until it
 * started; the page's console and errors are kept. */
export async function openViewer(context, url, { untilDone = true } = {}) {
  const page = await context.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
  // Not waiting for the load event: the page's own promise says when it
  // is ready, and a slow module fetch then shows up as the page's error.
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.viewerReady !== undefined, undefined, { timeout: 60_000 });
  const outcome = await page.evaluate(async (wait) => {
    try {
      await window.viewerReady;
      if (wait && window.viewer.done) await window.viewer.done;
      return { ok: true };
    } catch (e) {
      return { ok: false, error: String(e?.message ?? e) };
    }
  }, untilDone);
  return { page, logs, outcome };
}
