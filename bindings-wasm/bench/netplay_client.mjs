// The multiplayer client's cost in wasm (node), on the session the native
// server and client recorded (bindings-wasm/tests/data/netplay_session.bin;
// 240 ticks, 120 server states): per frame, two predicted ticks and one
// check that matches; and a reconciliation (a state that differs, so the
// client re-simulates its lead of LEAD ticks). The native twins are in
// netplay/examples/netplay_figures.rs. Run after `cargo xtask wasm`:
// `node bindings-wasm/bench/netplay_client.mjs` prints JSON.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = fileURLToPath(new URL('.', import.meta.url));
const sk = createRequire(import.meta.url)(join(here, '..', 'pkg', 'node', 'skidpad_wasm.js'));
const bytes = readFileSync(join(here, '..', 'tests', 'data', 'netplay_session.bin'));

const LEAD = 4;
const ROUNDS = 15;
const inputAt = (tick) => ({ throttle: 1, steer: [-0.25, 0, 0.25, 0][Math.floor(tick / 40) % 4] });

const session = [];
for (let at = 0; at < bytes.length;) {
  const length = bytes.readUInt32LE(at + 1);
  session.push({ kind: bytes[at], bytes: new Uint8Array(bytes.subarray(at + 5, at + 5 + length)) });
  at += 5 + length;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One pass over the session: µs per frame, µs per reconciliation. */
function pass(reconcile) {
  const client = new sk.NetClient('brandwood', 'rwd_sports', 60, session[0].bytes);
  client.advanceTo(client.tick + LEAD);
  let frames = 0;
  let spent = 0n;
  for (const { kind, bytes: payload } of session.slice(1)) {
    let frame = payload;
    if (kind === 2 && reconcile) {
      // One state byte flipped (the player block starts after the header
      // and the one-car cars block): the check fails and re-simulates.
      frame = payload.slice();
      frame[9 + 2 + 41 + 4 + 16 + 30] ^= 1;
    }
    const start = process.hrtime.bigint();
    if (kind === 1) client.drive(inputAt(client.tick + 1));
    else client.onFrame(frame);
    spent += process.hrtime.bigint() - start;
    if (kind === 2) frames += 1;
  }
  const stats = client.stats();
  client.free();
  if (!reconcile && stats.mispredicted !== 0) throw new Error('the session must predict exactly');
  // A damaged state is taken as the server's and the next (true) one
  // differs from what was predicted from it: nearly every frame re-simulates.
  if (reconcile && stats.mispredicted < frames / 2) throw new Error(`only ${stats.mispredicted} of ${frames} frames reconciled`);
  return Number(spent) / 1000 / frames;
}

for (let k = 0; k < 5; k++) pass(false); // let node optimise the module
const perFrame = median(Array.from({ length: ROUNDS }, () => pass(false)));
const withReconcile = median(Array.from({ length: ROUNDS }, () => pass(true)));
console.log(JSON.stringify({
  wasm_client_us_per_frame: Number(perFrame.toFixed(1)),
  wasm_client_us_per_frame_with_reconciliation: Number(withReconcile.toFixed(1)),
  reconciliation_ticks: LEAD + 2,
}));
