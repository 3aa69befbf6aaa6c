// One set of highlight rules: the wasm HighlightFinder, fed as the viewer's
// worker feeds it (the player's world and the wasm race layer's timing),
// finds in the golden replays exactly the overtakes, slides, lap records
// and hard contacts that the native `skidpad export` lists (the replay
// crate's finder in Rust), at the same steps. SKIDPAD_BIN is the native
// binary (`cargo xtask test` sets it).

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, DT, repoRoot } from './helpers.mjs';

const bin = process.env.SKIDPAD_BIN;
const golden = join(repoRoot, `golden/v${sk.simulationVersion()}`);
const KINDS = { overtake: 'overtake', slide: 'slide', record: 'record', hard_contact: 'contact' };

function nativeHighlights(file) {
  const json = JSON.parse(execFileSync(bin, ['export', file, '--channels', 'speed', '--stride', '1000000'], { maxBuffer: 1 << 30 }).toString());
  return json.events
    .filter((e) => e.kind in KINDS)
    .map((e) => [e.step, KINDS[e.kind], e.car, e.other ?? null, e.angle ?? e.impulse ?? e.time]);
}

function wasmHighlights(file) {
  const replay = sk.decodeReplay(new Uint8Array(readFileSync(file)));
  const track = replay.track();
  const player = new sk.ReplayPlayer(sk.createReplayWorld(replay), replay);
  const timing = track ? new sk.RaceTiming(track, player.poses()) : null;
  const finder = new sk.HighlightFinder();
  const found = [];
  let time = 0;
  for (let step = 1; player.advance(); step++) {
    time += DT;
    timing?.observe(time, player.poses());
    const events = timing ? finder.observe(step, player, timing) : finder.observeUntimed(step, player);
    for (const h of events) found.push([h.step, h.kind, h.cars[0], h.cars[1] ?? null, h.angle ?? h.impulse ?? h.time]);
  }
  return found;
}

for (const name of ['mixed_field.skr', 'long_run.skr', 'traffic.skr', 'tripped.skr']) {
  test(`${name}: the same highlights in wasm and natively`, { skip: !bin && 'SKIDPAD_BIN not set (cargo xtask test sets it)' }, () => {
    const file = join(golden, name);
    const native = nativeHighlights(file);
    assert.ok(native.length > 0, 'the golden race has highlights');
    assert.deepEqual(wasmHighlights(file), native);
  });
}
