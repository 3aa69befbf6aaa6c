// Telemetry exports from the package: a replay's car as CSV, MoTeC CSV and
// MoTeC i2 logged data (.ld with its .ldx) are the same bytes in wasm as
// `skidpad telemetry` writes natively (SKIDPAD_BIN, which `cargo xtask
// test` sets), and bad arguments throw.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sk, repoRoot } from './helpers.mjs';

const bin = process.env.SKIDPAD_BIN;
const file = join(repoRoot, `golden/v${sk.simulationVersion()}`, 'flat_lap.skr');
const replay = sk.decodeReplay(new Uint8Array(readFileSync(file)));
const options = { stride: 2, fileName: 'flat_lap.skr' };

/** What `skidpad telemetry` writes for car 0 in `format`, stride 2. */
function native(format, out) {
  execFileSync(bin, ['telemetry', file, '--car', '0', '--stride', '2', '--format', format, '-o', out]);
  return readFileSync(out);
}

const skipNative = !bin && 'SKIDPAD_BIN not set (cargo xtask test sets it)';

test('CSV and MoTeC CSV are the native bytes', { skip: skipNative }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-telemetry-'));
  const csv = sk.telemetryCsv(replay, 0, options);
  assert.ok(csv.startsWith('step,race_time,lap,lap_time,lap_distance,time,x,'));
  assert.equal(csv, native('csv', join(dir, 'car0.csv')).toString());
  const motec = sk.telemetryMotecCsv(replay, 0, options);
  assert.ok(motec.startsWith('"Format","MoTeC CSV File"'));
  assert.equal(motec, native('motec-csv', join(dir, 'car0.motec.csv')).toString());
});

test('a .ld log and its beacons are the native bytes', { skip: skipNative }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-telemetry-'));
  const { ld, ldx } = sk.telemetryLd(replay, 0, options);
  assert.ok(ld instanceof Uint8Array);
  // The format's marker, then a log of every channel plus the lap columns.
  assert.deepEqual([...ld.subarray(0, 4)], [0x40, 0, 0, 0]);
  assert.equal(new DataView(ld.buffer, ld.byteOffset).getUint32(0x56, true), sk.channelNames().length + 3);
  assert.deepEqual(Buffer.from(ld), native('ld', join(dir, 'car0.ld')));
  assert.equal(ldx, readFileSync(join(dir, 'car0.ldx'), 'utf8'));
  assert.ok(ldx.includes('ClassName="BCN"'));
});

test('bad arguments throw', () => {
  assert.throws(() => sk.telemetryCsv(replay, 7), { name: 'RangeError', message: /no car 7/ });
  assert.throws(() => sk.telemetryCsv(replay, 0, { stride: 0 }), RangeError);
  assert.throws(() => sk.telemetryMotecCsv(replay, 0, { laps: '3-2' }), RangeError);
  assert.throws(() => sk.telemetryLd(replay, 0, { stride: 7 }), /whole number of Hz/);
  assert.throws(() => sk.telemetryCsv(replay, 0, { laps: '40-41' }), /no rows in laps 40-41/);
});
