// Runs in the browser under test: measures everything in checks.mjs with
// the package's web build and posts the result to run.mjs's server (which
// also started this browser). The engine's name comes in the URL.

import init, * as sk from '/pkg/web/skidpad_wasm.js';
import { measureAll } from './checks.mjs';
import { HillGame } from '/tests/hill_game.mjs';

async function post(result) {
  await fetch('/result', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) });
}

async function run() {
  await init();
  const engine = new URLSearchParams(location.search).get('engine') ?? 'unnamed';
  const load = async (path) => new Uint8Array(await (await fetch(`/golden/${path}`)).arrayBuffer());
  return measureAll(sk, { engine, load, HillGame });
}

run()
  .catch((e) => ({ error: `${e?.constructor?.name}: ${e?.message ?? e}\n${e?.stack ?? ''}` }))
  .then(post);
