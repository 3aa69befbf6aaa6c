// What the npm package ships: one copy of the wasm (the node half loads
// the web half's), and no name section in it (function names only a
// debugger reads; 189 kB of a browser's download).

import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, sk } from './helpers.mjs';

const pkg = join(repoRoot, 'bindings-wasm', 'pkg');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]);
}

/** The names of a wasm module's custom sections. */
function customSections(bytes) {
  const names = [];
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 0) {
      const length = leb();
      names.push(new TextDecoder().decode(bytes.subarray(at, at + length)));
    }
    at = end;
  }
  return names;
}

test('the package holds one wasm, with no name or debug section, and node loads it', () => {
  const wasm = files(pkg).filter((f) => f.endsWith('.wasm'));
  assert.deepEqual(wasm, [join(pkg, 'web', 'skidpad_wasm_bg.wasm')]);
  const sections = customSections(readFileSync(wasm[0]));
  assert.ok(!sections.includes('name'), `custom sections: ${sections}`);
  assert.ok(!sections.some((s) => s.startsWith('.debug')), `custom sections: ${sections}`);
  assert.equal(typeof sk.simulationVersion(), 'number');
});
