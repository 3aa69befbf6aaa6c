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

test("the README's web-page example runs, its frames driven by hand", async () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const page = readme.match(/```html\n([\s\S]*?)```/)?.[1];
  assert.ok(page, 'the README has an html block');
  const script = page.match(/<script type="module">([\s\S]*?)<\/script>/)?.[1];
  assert.ok(script, 'the page has a module script');
  // The page's import of the web module becomes the node build (whose
  // `init` has nothing to fetch), and the browser's frame loop runs 300
  // frames synchronously.
  const node = script.replace(
    /import init, \{([^}]*)\} from 'skidpad';/,
    (_, names) => `const init = async () => {}; const {${names}} = require(${JSON.stringify(join(repoRoot, 'bindings-wasm/pkg/node/skidpad_wasm.js'))});`,
  );
  assert.notEqual(node, script, 'the import line is the one the test rewrites');
  const dir = mkdtempSync(join(tmpdir(), 'skidpad-readme-page-'));
  try {
    const file = join(dir, 'page.mjs');
    writeFileSync(
      file,
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
let frames = 0;
const queue = [];
globalThis.requestAnimationFrame = (f) => queue.push(f);
const laps = [];
console.log = (line) => laps.push(line);
${node}
while (queue.length && frames < 300) { frames++; queue.shift()(); }
export const result = { frames, world, laps };
`,
    );
    const log = console.log;
    try {
      const { result } = await import(pathToFileURL(file).href);
      assert.equal(result.frames, 300);
      assert.equal(result.world.carIds().length, 4);
      assert.equal(result.world.stepCount, 300);
    } finally {
      console.log = log;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
