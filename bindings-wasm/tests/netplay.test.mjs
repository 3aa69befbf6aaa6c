// Live multiplayer through the package: the wasm client replays a session
// recorded between the native server and the native client
// (netplay/tests/wasm_session.rs writes tests/data/netplay_session.bin),
// sends the same input bytes and predicts every server state bit for bit;
// the schema, frame decoder and interpolation buffer; strict arguments.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, repoRoot } from './helpers.mjs';

// The same constants and script as the Rust side.
const LEAD = 4;
const TICK_HZ = 60;
const inputAt = (tick) => ({ throttle: 1, steer: [-0.25, 0, 0.25, 0][Math.floor(tick / 40) % 4] });

function records() {
  const bytes = readFileSync(join(repoRoot, 'bindings-wasm/tests/data/netplay_session.bin'));
  const out = [];
  for (let at = 0; at < bytes.length;) {
    const kind = bytes[at];
    const length = bytes.readUInt32LE(at + 1);
    out.push({ kind, bytes: new Uint8Array(bytes.subarray(at + 5, at + 5 + length)) });
    at += 5 + length;
  }
  return out;
}

test('the wasm client predicts the native server bit for bit and sends the same inputs', () => {
  const session = records();
  assert.equal(session[0].kind, 0, 'the session starts with the first shot');
  const client = new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, session[0].bytes);
  client.advanceTo(client.tick + LEAD);
  let frames = 0;
  for (const { kind, bytes } of session.slice(1)) {
    if (kind === 1) {
      const sent = client.drive(inputAt(client.tick + 1));
      assert.deepEqual(sent, bytes, `the input message for tick ${client.tick}`);
    } else {
      assert.equal(client.onFrame(bytes), null, `the state at frame ${frames}`);
      frames += 1;
    }
  }
  const stats = client.stats();
  assert.ok(frames > 100 && stats.checked === frames, `${stats.checked} of ${frames} states checked`);
  assert.equal(stats.mispredicted, 0);
  assert.equal(stats.lateCorrections, 0);
  const pose = client.pose();
  assert.ok(pose.speed > 10, `the car drives: ${pose.speed} m/s`);
});

test('a wrong state is a named misprediction, and the client takes the server state', () => {
  const session = records();
  const client = new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, session[0].bytes);
  client.advanceTo(client.tick + LEAD);
  const shots = session.filter((r) => r.kind === 2);
  // The first shot after the client's inputs start, with one byte of the
  // car's state flipped.
  for (const r of session.slice(1)) {
    if (r.kind === 1) client.drive(inputAt(client.tick + 1));
    else break;
  }
  const schema = sk.NetSchema.race();
  const frame = schema.decodeFrame(shots[0].bytes);
  assert.equal(frame.blocks.player.length, 1);
  assert.equal(frame.blocks.cars[0].id, 0);
  assert.ok('x' in frame.blocks.cars[0].row && 'gear' in frame.blocks.cars[0].row);
  const damaged = shots[0].bytes.slice();
  // The player key byte: after the 9-byte header and the cars block (key,
  // count, then one car of id, hasData and 38 bytes of fields).
  const at = 9 + 2 + 41;
  assert.equal(damaged[at], 2);
  damaged[at + 1 + 1 + 1 + 1 + 16 + 30] ^= 1; // count, id, hasData, four head words, a state byte
  const miss = client.onFrame(damaged);
  assert.ok(miss !== null && miss.fields.length >= 1, 'named fields');
  assert.equal(client.stats().mispredicted, 1);
});

test('a client told the race waits holds its car, and a start tick must be a tick', () => {
  // The recorded server let the car go at once; a client that holds it
  // (start tick null: waiting for players) predicts a car on the brakes
  // and misses every state the driving car reaches.
  const session = records();
  const held = new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, session[0].bytes);
  held.setStartTick(null);
  held.advanceTo(held.tick + LEAD);
  for (const { kind, bytes } of session.slice(1)) {
    if (kind === 1) held.drive(inputAt(held.tick + 1));
    else held.onFrame(bytes);
  }
  assert.ok(held.stats().mispredicted > 100, JSON.stringify(held.stats()));
  // Told the start is at tick 0, the same client predicts exactly again.
  const free = new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, session[0].bytes);
  free.setStartTick(null);
  free.setStartTick(0);
  free.advanceTo(free.tick + LEAD);
  for (const { kind, bytes } of session.slice(1)) {
    if (kind === 1) free.drive(inputAt(free.tick + 1));
    else assert.equal(free.onFrame(bytes), null);
  }
  for (const bad of [-1, 1.5, 2 ** 32, NaN, '7', undefined]) {
    assert.throws(() => free.setStartTick(bad), RangeError, String(bad));
  }
});

test('the schema, the frame decoder and the interpolation buffer', () => {
  const schema = sk.NetSchema.race();
  const json = JSON.parse(schema.toJson());
  // The last four go only to clients that predict every car.
  assert.deepEqual(json.map((k) => k.key), ['cars', 'player', 'contact', 'lap', 'removed', 'inputs', 'placed', 'hashes', 'states']);
  assert.equal(sk.NetSchema.fromJson(schema.toJson()).toJson(), schema.toJson());
  assert.throws(() => sk.NetSchema.fromJson('[{"key":"a","id":1,"kind":"list16","class":"event","fields":[]}]'), /"a".*fields/);
  assert.throws(() => sk.NetSchema.fromJson(42), RangeError);

  const shots = records().filter((r) => r.kind === 2);
  const buffer = new sk.NetInterpolator(schema, 100, 1000);
  buffer.firstShot(shots[0].bytes);
  for (const s of shots.slice(1, 10)) assert.equal(buffer.push(s.bytes), true);
  assert.equal(buffer.push(shots[5].bytes), false, 'an old frame is ignored');
  const t5 = schema.decodeFrame(shots[5].bytes).serverTimeMs;
  const t6 = schema.decodeFrame(shots[6].bytes).serverTimeMs;
  const [car] = buffer.sample((t5 + t6) / 2 + 100);
  assert.equal(car.key, 'cars');
  const x5 = schema.decodeFrame(shots[5].bytes).blocks.cars[0].row.x;
  const x6 = schema.decodeFrame(shots[6].bytes).blocks.cars[0].row.x;
  assert.ok(Math.abs(car.row.x - (x5 + x6) / 2) < 1e-3, `x ${car.row.x} between ${x5} and ${x6}`);

  // Bad bytes are errors with the byte, never a crash.
  assert.throws(() => schema.decodeFrame(new Uint8Array([9, 0, 0])), /version 9/);
  assert.throws(() => schema.decodeFrame(shots[0].bytes.subarray(0, 30)), /byte \d+/);
  assert.throws(() => schema.decodeFrame('frame'), RangeError);
  assert.throws(() => new sk.NetInterpolator(schema, -1, 1000), RangeError);
  assert.throws(() => new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, new Uint8Array(3)), RangeError);
  assert.throws(() => new sk.NetClient('nowhere', 'rwd_sports', TICK_HZ, shots[0].bytes));
  const client = new sk.NetClient('brandwood', 'rwd_sports', TICK_HZ, records()[0].bytes);
  client.setLeadSafety(6);
  assert.throws(() => client.setLeadSafety(31), /lead safety of 31 ticks/);
  assert.throws(() => client.setLeadSafety(-1), RangeError);
});

test('netChannels gives the wire\'s channel bytes by name, as FORMAT.md tables them', () => {
  const ch = sk.netChannels();
  // Spot checks against the table in netplay/FORMAT.md; the page keys
  // every message by these names instead of its own numbers.
  assert.deepEqual(
    [ch.config, ch.auth, ch.authResult, ch.map, ch.firstShot, ch.shot, ch.chatSend, ch.gameInform, ch.techInform, ch.panel, ch.stat, ch.chat, ch.input, ch.ping, ch.pong],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15, 20, 30, 31],
  );
  assert.equal(new Set(Object.values(ch)).size, Object.keys(ch).length, 'no two names share a byte');
});

test('a RaceMap reads the race\'s own track and car from the map message, or refuses it with the reason', () => {
  const csv = readFileSync(join(repoRoot, 'track-import/tests/data/tum/BrandsHatch.csv'), 'utf8');
  const circuit = sk.TrackView.fromTumCsv(csv, 'Brands Hatch');
  const car = { ...JSON.parse(sk.presetDefinition('rwd_sports')), name: 'Club racer' };
  const map = {
    track: 'Brands Hatch', car: 'Club racer', laps: 3, seat: 0,
    track_definition: JSON.parse(circuit.definitionJson()), car_definition: car,
  };
  const race = sk.RaceMap.parse(JSON.stringify(map));
  const track = race.trackView();
  assert.equal(track.fingerprint, circuit.fingerprint, 'the same circuit');
  assert.equal(JSON.parse(race.carDefinition()).name, 'Club racer');
  // A built-in race names its track and preset only.
  const builtin = sk.RaceMap.parse(JSON.stringify({ track: 'hillcrest', car: 'kart', laps: 1, seat: null }));
  assert.equal(builtin.trackView().fingerprint, new sk.TrackView('hillcrest').fingerprint);
  assert.equal(JSON.parse(builtin.carDefinition()).name, JSON.parse(sk.presetDefinition('kart')).name);
  assert.throws(() => sk.RaceMap.parse('{"track": "nowhere", "car": "kart", "laps": 1, "seat": 0}'), /nowhere/);
  assert.throws(() => sk.RaceMap.parse(JSON.stringify({ ...map, car_definition: { ...car, chassis: { ...car.chassis, mass: -1 } } })), /mass/);
  assert.throws(() => sk.RaceMap.parse('not json'), /the map message/);
  // The whole-race client needs a first shot with every car's state: the
  // recorded session's client predicted its own car only.
  const own = sk.RaceMap.parse(JSON.stringify({ track: 'brandwood', car: 'rwd_sports', laps: 3, seat: 0 }));
  assert.throws(() => sk.RaceClient.forRace(own, TICK_HZ, 2, records()[0].bytes), /no states block/);
  assert.throws(() => sk.RaceClient.forRace(own, TICK_HZ, 0, records()[0].bytes), /ticks_per_frame/);
});
