// The browser test: `node run.mjs chromium|firefox|webkit`. Serves the
// package, the golden corpus and page.html on 127.0.0.1, starts the
// engine's browser on the page once per tier setting (engines.mjs), waits
// for the page to post what checks.mjs measured, and compares it with the
// same measurements made here by the package's node build and with the
// native pinned hashes. Writes each browser's recorded replay to
// target/wasm-cross/ for the native verifier. Run by `cargo xtask test`
// after `cargo xtask wasm`.

import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { RACE_STEPS, recordRace, toBase64 } from './checks.mjs';
import { coreGoldenHash, goldenHashes } from '../tests/golden.mjs';
import { ENGINES, startBrowser } from './engines.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '..', '..');
const sk = createRequire(import.meta.url)('../pkg/node/skidpad_wasm.js');
// A tier with its JIT off plays the whole corpus in an interpreter.
const PAGE_TIMEOUT_MS = 20 * 60 * 1000;

const engine = process.argv[2];
if (!ENGINES[engine]) {
  console.error(`usage: node run.mjs ${Object.keys(ENGINES).join('|')}`);
  process.exit(2);
}

// URL prefix → directory served under it.
const roots = {
  '/pkg/': join(repoRoot, 'bindings-wasm', 'pkg'),
  '/golden/': join(repoRoot, 'golden'),
  '/tests/': join(repoRoot, 'bindings-wasm', 'tests'),
  '/': here,
};
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

let deliver = () => {};

function serve(req, res) {
  const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  if (req.method === 'POST' && path === '/result') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      deliver(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    });
    return;
  }
  const prefix = Object.keys(roots).find((p) => path.startsWith(p));
  const file = normalize(join(roots[prefix], path.slice(prefix.length) || 'page.html'));
  if (!file.startsWith(roots[prefix]) || !existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
}


// Opens the page in one browser setting and returns what it posted.
async function measureIn(port, tier) {
  const profile = mkdtempSync(join(tmpdir(), `skidpad-${engine}-`));
  const url = `http://127.0.0.1:${port}/page.html?engine=${engine}-${tier.name}`;
  const browser = startBrowser(engine, tier, url, profile);
  try {
    return await new Promise((resolve, reject) => {
      deliver = resolve;
      const timer = setTimeout(
        () => reject(new Error(`no result from ${engine} (${tier.name}) in ${PAGE_TIMEOUT_MS / 1000} s\n${browser.log()}`)),
        PAGE_TIMEOUT_MS,
      );
      browser.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${engine} (${tier.name}) exited with ${code} before the page answered\n${browser.log()}`));
      });
      deliver = (result) => {
        clearTimeout(timer);
        resolve(result);
      };
    });
  } finally {
    await browser.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

// The same race in node: every engine must reproduce its hashes and
// ghost bytes exactly.
const reference = recordRace(sk, 'node');
const referenceGhost = toBase64(sk.encodeGhost(reference.ghost));
const golden = goldenHashes(sk.simulationVersion()).table;

function check(result, label) {
  if (!result || result.error) throw new Error(`page failed in ${label}: ${result?.error}`);
  console.log(`${label}: ${result.userAgent} (${result.seconds.toFixed(1)} s in the page)`);
  assert.equal(result.simulationVersion, sk.simulationVersion());
  assert.equal(result.referenceHash, coreGoldenHash('reference'), `GOLDEN scenario hash in ${label}`);
  console.log(`ok  GOLDEN scenario in ${label}: ${result.referenceHash}`);

  assert.deepEqual(result.race.hashes, reference.hashes, `the race's world hash after every step in ${label} equals node's`);
  assert.equal(result.race.steps, RACE_STEPS);
  assert.equal(result.race.mismatches, 0, 'playback hash at every step');
  assert.equal(result.race.desyncs, 0);
  assert.ok(result.race.seekOk, 'seek');
  assert.equal(result.raceVerify.valid, true);
  assert.equal(result.raceVerify.finalHash, reference.hashes[RACE_STEPS]);
  console.log(`ok  race recorded, encoded, decoded and played in ${label}: ${RACE_STEPS + 1} hashes equal node's, 0 desyncs`);
  assert.ok(result.raceGhost.sameFrames && result.raceGhost.sameBytes, 'ghost round trip');
  assert.equal(result.raceGhost.base64, referenceGhost, `the race's ghost in ${label} is node's byte for byte`);
  console.log(`ok  ghost round trip in ${label}: .skg bytes equal node's`);

  const files = Object.keys(golden);
  assert.deepEqual(Object.keys(result.golden).sort(), files.slice().sort(), 'every golden file was checked');
  for (const file of files) {
    const got = result.golden[file];
    if (file.endsWith('.skg')) {
      assert.ok(got.ghostRoundTrip, `${file} decodes and re-encodes to its bytes in ${label}`);
      continue;
    }
    assert.deepEqual(got.mismatches, [], `${file} keyframe hashes in ${label}`);
    assert.equal(got.desyncs, 0, `${file} desyncs in ${label}`);
    assert.ok(got.keyframes >= 2, `${file}: ${got.keyframes} pinned hashes compared`);
    assert.equal(got.finalHash, golden[file].final);
  }
  const replays = files.filter((f) => f.endsWith('.skr'));
  const keyframes = replays.reduce((n, f) => n + result.golden[f].keyframes, 0);
  console.log(`ok  ${replays.length} golden replays played step by step in ${label} (${keyframes} pinned hashes), ${files.length - replays.length} golden ghosts round-tripped`);

  const out = join(repoRoot, 'target', 'wasm-cross');
  mkdirSync(out, { recursive: true });
  const name = `recorded-in-${result.engine}`;
  writeFileSync(join(out, `${name}.skr`), Buffer.from(result.raceBase64, 'base64'));
  writeFileSync(join(out, `${name}.hash`), `${reference.hashes[RACE_STEPS]}\n`);
}

const server = createServer(serve);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
try {
  for (const tier of ENGINES[engine]) {
    const label = `${engine} (${tier.name}: ${tier.describe})`;
    check(await measureIn(server.address().port, tier), label);
  }
} finally {
  server.close();
}
