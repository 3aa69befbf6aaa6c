// The whole-race client's cost in wasm (node): the session
// `netplay/examples/race_client_session.rs` records (every car but the
// player's driven by the server's AI, so every frame goes back the
// client's whole lead: 10 ticks and the frame's 2), replayed into the npm
// package's RaceClient. Per frame: two predicted ticks and one frame's
// confirmations with its rollback. Run after `cargo xtask wasm`:
//
//   cargo run --release -p skidpad-netplay --example race_client_session -- 20 /tmp/race20.bin
//   node bindings-wasm/bench/race_client.mjs /tmp/race20.bin
//
// prints JSON.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = fileURLToPath(new URL('.', import.meta.url));
const sk = createRequire(import.meta.url)(join(here, '..', 'pkg', 'node', 'skidpad_wasm.js'));
const file = process.argv[2];
if (!file) throw new Error('usage: node race_client.mjs SESSION (from the race_client_session example)');
const bytes = readFileSync(file);

/** The session's lead, ticks (the example's `LEAD`). */
const LEAD = 10;
const ROUNDS = 5;
const TICK_HZ = 60;
const TICKS_PER_FRAME = 2;
// The example's scripted driver.
const inputAt = (tick) => ({ throttle: 1, steer: [-0.25, 0, 0.25, 0][Math.floor(tick / 40) % 4] });

const records = [];
for (let at = 0; at < bytes.length;) {
  const length = bytes.readUInt32LE(at + 1);
  records.push({ kind: bytes[at], bytes: new Uint8Array(bytes.subarray(at + 5, at + 5 + length)) });
  at += 5 + length;
}
const map = sk.RaceMap.parse(new TextDecoder().decode(records[0].bytes));
const shots = records.slice(2).map((r) => r.bytes);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One pass over the session: µs per frame. */
function pass() {
  const client = sk.RaceClient.forRace(map, TICK_HZ, TICKS_PER_FRAME, records[1].bytes);
  client.advanceTo(client.tick + LEAD);
  let spent = 0n;
  for (const shot of shots) {
    const start = process.hrtime.bigint();
    for (let k = 0; k < TICKS_PER_FRAME; k++) client.drive(inputAt(client.tick + 1));
    const desync = client.onFrame(shot);
    spent += process.hrtime.bigint() - start;
    if (desync) throw new Error(`a desync: ${JSON.stringify(desync)}`);
  }
  const stats = client.stats();
  const cars = client.poses().length;
  client.free();
  if (stats.rollbacks !== shots.length) throw new Error(`only ${stats.rollbacks} of ${shots.length} frames went back`);
  return { us: Number(spent) / 1000 / shots.length, cars, again: stats.resimulatedTicks / shots.length };
}

pass(); // let node optimise the module
const runs = Array.from({ length: ROUNDS }, pass);
console.log(JSON.stringify({
  cars: runs[0].cars,
  wasm_race_client_us_per_frame: Number(median(runs.map((r) => r.us)).toFixed(0)),
  ticks_stepped_again_per_frame: runs[0].again,
}));
