// The README's JavaScript example, run as written against the package
// (imported by its name, through the package.json exports).

import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './helpers.mjs';

test('the README example runs', async () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## JavaScript'));
  const code = section.match(/```js\n([\s\S]*?)```/)?.[1];
  assert.ok(code, 'the README has a js block under "## JavaScript"');
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-readme-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(repoRoot, 'bindings-wasm', 'pkg'), join(dir, 'node_modules', 'skidpad'), 'dir');
    writeFileSync(join(dir, 'example.mjs'), code);
    await import(pathToFileURL(join(dir, 'example.mjs')).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
