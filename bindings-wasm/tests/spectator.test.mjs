// The package's spectator client against the real spectator service (the
// `skidpad-spectator` binary, which `cargo xtask test` builds and names in
// SKIDPAD_SPECTATOR_BIN) on loopback: join a running race late, follow it
// to the end, and hold the world the whole stream ends with.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sk } from './helpers.mjs';
import { spectate } from '../pkg/spectator.mjs';

const bin = process.env.SKIDPAD_SPECTATOR_BIN;

// Starts the service on a free port; resolves with its base URL.
function startService() {
  const child = spawn(
    bin,
    ['--listen', '127.0.0.1:0', '--cars', '2', '--laps', '1', '--pace', '20', '--chunk-steps', '60'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/(127\.0\.0\.1:\d+)\//);
      if (m) resolve({ child, base: `http://${m[1]}/races/demo` });
    });
    child.on('exit', (code) => reject(new Error(`skidpad-spectator exited with ${code}`)));
  });
}

test('a late spectator follows a live race to its end, bit for bit', { skip: !bin && 'SKIDPAD_SPECTATOR_BIN not set (cargo xtask test sets it)' }, async () => {
  const { child, base } = await startService();
  try {
    // Join once the race is a few chunks in.
    for (;;) {
      const range = await (await fetch(`${base}/range`)).json();
      if (range.last >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    let chunks = 0;
    const race = await spectate(sk, base, { onChunk: () => { chunks += 1; } });
    const follower = await race.done;
    const range = await (await fetch(`${base}/range`)).json();
    assert.ok(range.end > 3 && range.end === range.last);
    assert.ok(chunks < range.end, 'joined late, not from chunk 1');
    // The whole stream, fetched piece by piece, ends with the same world.
    const parts = [new Uint8Array(await (await fetch(`${base}/header`)).arrayBuffer())];
    for (let n = 1; n <= range.end; n++) {
      parts.push(new Uint8Array(await (await fetch(`${base}/chunks/${n}`)).arrayBuffer()));
    }
    const all = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
    let at = 0;
    for (const p of parts) { all.set(p, at); at += p.length; }
    const whole = sk.readStream(all);
    assert.equal(follower.worldHash(), whole.replay.finalHash);
    assert.equal(follower.step, whole.replay.stepCount);
  } finally {
    child.kill();
  }
});
