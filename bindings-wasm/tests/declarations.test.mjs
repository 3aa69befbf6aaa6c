// The .d.ts is written by hand in part (the custom section in
// bindings-wasm/src/lib.rs) and generated in part: this test holds it to
// the real module, both ways, so the declarations cannot drift. Every
// declared class must be a class, every declared function a function, and
// everything the module exports must be declared.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sk, repoRoot } from './helpers.mjs';

function declarations(file) {
  const text = readFileSync(join(repoRoot, 'bindings-wasm/pkg', file), 'utf8');
  const found = new Map();
  for (const [, kind, name] of text.matchAll(/^export (class|function|const|interface|type) (\w+)/gm)) {
    found.set(name, kind);
  }
  return found;
}

const isClass = (value) => typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));

test('every name the node .d.ts declares exists in the module with its kind', () => {
  const declared = declarations('node/skidpad_wasm.d.ts');
  assert.ok(declared.size > 40, `only ${declared.size} declarations read`);
  for (const [name, kind] of declared) {
    const value = sk[name];
    if (kind === 'interface' || kind === 'type') {
      assert.equal(value, undefined, `${name} is declared as a ${kind} (no value) but the module exports one`);
    } else if (kind === 'class') {
      assert.ok(isClass(value), `${name} is declared as a class, the module has ${typeof value}`);
    } else if (kind === 'function') {
      assert.ok(typeof value === 'function' && !isClass(value), `${name} is declared as a function, the module has ${isClass(value) ? 'a class' : typeof value}`);
    } else {
      assert.notEqual(value, undefined, `${name} is declared but not exported`);
    }
  }
});

test('everything the module exports is declared', () => {
  const declared = declarations('node/skidpad_wasm.d.ts');
  const undeclared = Object.keys(sk).filter((name) => !declared.has(name));
  assert.deepEqual(undeclared, [], 'exported without a declaration');
});

test('the web build declares the same names as the node build', () => {
  const node = declarations('node/skidpad_wasm.d.ts');
  const web = declarations('web/skidpad_wasm.d.ts');
  for (const [name, kind] of node) {
    assert.equal(web.get(name), kind, `${name}: node declares a ${kind}, web a ${web.get(name)}`);
  }
});

test('the hand-written types name only classes that exist', () => {
  // The custom section refers to classes by name (e.g. `StreamFollower`
  // in a callback's type); a renamed class must fail here, not in a game.
  const text = readFileSync(join(repoRoot, 'bindings-wasm/pkg/node/skidpad_wasm.d.ts'), 'utf8');
  const declared = declarations('node/skidpad_wasm.d.ts');
  const referenced = new Set([...text.matchAll(/:\s*([A-Z]\w+)\b/g)].map((m) => m[1]));
  const builtins = new Set(['Uint8Array', 'Float64Array', 'Float32Array', 'Uint32Array', 'Array', 'Promise', 'Record', 'Function', 'Map', 'Set', 'Error', 'RangeError', 'WebAssembly', 'Partial', 'Readonly', 'ArrayBuffer', 'BigInt', 'Symbol', 'Required', 'Pick', 'Omit']);
  for (const name of referenced) {
    if (builtins.has(name)) continue;
    assert.ok(declared.has(name), `the .d.ts refers to ${name}, which it does not declare`);
  }
});
