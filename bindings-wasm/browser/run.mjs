// The headless-Chromium check: serves the package and page.html on
// 127.0.0.1, opens it in Debian's chromium through playwright-core, and
// checks the page's hashes against the native ones. Also writes the
// replay recorded in the browser to target/wasm-cross/ for the native
// verifier. Run by `cargo xtask test` after `cargo xtask wasm`.

import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '..', '..');
const CHROMIUM = process.env.SKIDPAD_CHROMIUM ?? '/usr/bin/chromium';

// URL prefix → directory served under it.
const roots = {
  '/pkg/': join(repoRoot, 'bindings-wasm', 'pkg'),
  '/golden/': join(repoRoot, 'golden'),
  '/': here,
};
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

function serve(req, res) {
  const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  const prefix = Object.keys(roots).find((p) => path.startsWith(p));
  const file = normalize(join(roots[prefix], path.slice(prefix.length) || 'page.html'));
  if (!file.startsWith(roots[prefix]) || !existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
}

function nativeGolden() {
  const source = readFileSync(join(repoRoot, 'sim-core/tests/golden.rs'), 'utf8');
  return source.match(/const GOLDEN: &str = "([0-9a-f]{64})";/)[1];
}

function goldenFinal(version, file) {
  const text = readFileSync(join(repoRoot, 'golden', `v${version}`, 'HASHES'), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith(`${file} final `));
  return line.split(/\s+/)[2];
}

const server = createServer(serve);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/page.html`;
const profile = mkdtempSync(join(tmpdir(), 'skidpad-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
  await page.goto(url);
  const result = await page.evaluate(() => window.skidpadResult, undefined, { timeout: 120_000 });
  if (!result || result.error) throw new Error(`page failed: ${result?.error}\n${logs.join('\n')}`);

  console.log(`chromium: ${result.userAgent}`);
  assert.equal(result.referenceHash, nativeGolden(), 'GOLDEN scenario hash in Chromium');
  console.log(`ok  GOLDEN scenario in Chromium: ${result.referenceHash}`);
  assert.equal(result.recorded.steps, 600);
  assert.equal(result.recorded.mismatches, 0, 'playback hash at every step');
  assert.equal(result.recorded.desyncs, 0);
  assert.ok(result.recorded.seekOk, 'seek');
  assert.equal(result.recordedVerify.valid, true);
  assert.equal(result.recordedVerify.finalHash, result.recorded.finalHash);
  console.log(`ok  replay recorded, encoded, decoded and played in Chromium: 0 desyncs, final ${result.recorded.finalHash}`);
  const expected = goldenFinal(result.simulationVersion, 'flat_lap.skr');
  assert.equal(result.goldenFlatLap.desyncs, 0);
  assert.equal(result.goldenFlatLap.finalHash, expected, 'native golden replay in Chromium');
  console.log(`ok  native golden flat_lap.skr verified in Chromium: ${expected}`);

  const out = join(repoRoot, 'target', 'wasm-cross');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'recorded-in-chromium.skr'), Buffer.from(result.recordedBase64, 'base64'));
  writeFileSync(join(out, 'recorded-in-chromium.hash'), `${result.recorded.finalHash}\n`);
} finally {
  await context?.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
