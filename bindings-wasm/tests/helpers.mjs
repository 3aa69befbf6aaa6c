// Shared by the node tests: the package under test, the repository's paths
// and the native figures the wasm build must reproduce.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');

// The node half of the generated package (built by `cargo xtask wasm`).
const require = createRequire(import.meta.url);
export const sk = require('../pkg/node/skidpad_wasm.js');

// The pinned native GOLDEN hash, read from the Rust test that pins it, so
// there is one constant for every target.
export function nativeGolden() {
  const source = readFileSync(join(repoRoot, 'sim-core/tests/golden.rs'), 'utf8');
  const match = source.match(/const GOLDEN: &str = "([0-9a-f]{64})";/);
  if (!match) throw new Error('GOLDEN not found in sim-core/tests/golden.rs');
  return match[1];
}

// golden/v<version>/HASHES as { file: { step or 'final': hash } }.
export function goldenHashes(version = sk.simulationVersion()) {
  const dir = join(repoRoot, 'golden', `v${version}`);
  const table = {};
  for (const line of readFileSync(join(dir, 'HASHES'), 'utf8').split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [file, key, hash] = line.split(/\s+/);
    (table[file] ??= {})[key] = hash;
  }
  return { dir, table };
}

export const DT = 1 / 60;

// The golden game_logic scenario's game, shared with the browser test's page.
export { HillGame } from './hill_game.mjs';
