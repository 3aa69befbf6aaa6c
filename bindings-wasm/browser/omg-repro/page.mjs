import init, * as sk from '/pkg/web/skidpad_wasm.js';
import { measureAll } from '/browser/checks.mjs';
import { HillGame } from '/tests/hill_game.mjs';
const post = (r) => fetch('/result', { method: 'POST', body: JSON.stringify(r) });
try {
  await init();
  const load = async (path) => new Uint8Array(await (await fetch(`/golden/${path}`)).arrayBuffer());
  const r = await measureAll(sk, { engine: 'omg', load, HillGame });
  const file = await load('v16/long_run_lap3.skg');
  const again = sk.encodeGhost(sk.decodeGhost(file));
  const diffs = [];
  for (let k = 0; k < Math.max(again.length, file.length) && diffs.length < 8; k++) if (again[k] !== file[k]) diffs.push([k, file[k], again[k]]);
  const golden = Object.fromEntries(Object.entries(r.golden).map(([f, v]) => [f, v.ghostRoundTrip ?? { desyncs: v.desyncs, mismatches: v.mismatches?.length }]));
  await post({ rounds: [{ golden, raceGhost: { sameFrames: r.raceGhost.sameFrames, sameBytes: r.raceGhost.sameBytes }, ref: r.referenceHash, seconds: r.seconds, diffs, framesDiffer: [] , len: file.length}] });
} catch (e) {
  await post({ error: String(e && e.stack || e) });
}
