// A car package in the npm package: the hatchback with Project Chrono's
// sedan tire (sim-core/tests/data/tir/, a file nobody here wrote) named
// for its front axle reads, with `carFromPackage`, as the same car the
// native `skidpad car` writes out (SKIDPAD_BIN), and drives.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sk, DT, repoRoot } from './helpers.mjs';

const bin = process.env.SKIDPAD_BIN;
const tir = join(repoRoot, 'sim-core/tests/data/tir/Sedan_Pac02Tire.tir');

function sedanPackage() {
  const car = JSON.parse(sk.presetDefinition('fwd_hatchback'));
  car.name = 'Sedan';
  car.tires.front = { tir: 'sedan.tir' };
  return JSON.stringify(car);
}

test('carFromPackage writes a package out as the native reader does', () => {
  const full = sk.carFromPackage(sedanPackage(), { 'sedan.tir': readFileSync(tir, 'utf8') });
  const car = JSON.parse(full);
  assert.equal(car.name, 'Sedan');
  assert.equal(typeof car.tires.front.nominal_load, 'number');
  const world = new sk.World();
  const id = world.addCar(full, { speed: 10 });
  world.setInput(id, { throttle: 0.5 });
  for (let k = 0; k < 60; k++) world.step(DT);
  assert.ok(world.pose(id).x > 5);
  assert.throws(() => sk.carFromPackage(sedanPackage(), {}), /no text for "sedan.tir"/);
  assert.throws(() => sk.carFromPackage(sedanPackage().replace('sedan.tir', '../sedan.tir'), {}), /beside the package/);
  if (bin) {
    const dir = mkdtempSync(join(tmpdir(), 'car-'));
    copyFileSync(tir, join(dir, 'sedan.tir'));
    writeFileSync(join(dir, 'sedan.json'), sedanPackage());
    execFileSync(bin, ['car', join(dir, 'sedan.json'), '-o', join(dir, 'full.json')]);
    assert.equal(readFileSync(join(dir, 'full.json'), 'utf8').trim(), full);
  }
});
