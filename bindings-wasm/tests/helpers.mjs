// Shared by the node tests: the package under test, the repository's paths
// and the native figures the wasm build must reproduce.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { coreGoldenHash, goldenHashes as readGoldenHashes } from './golden.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');

// The node half of the generated package (built by `cargo xtask wasm`).
const require = createRequire(import.meta.url);
export const sk = require('../pkg/node/skidpad_wasm.js');

// The pinned native GOLDEN hash (the reference scenario's), from the file
// the Rust test reads, so there is one hash for every target.
export function nativeGolden() {
  return coreGoldenHash('reference');
}

// golden/v<version>/HASHES as { dir, table: { file: { step or 'final': hash } } }.
export function goldenHashes(version = sk.simulationVersion()) {
  return readGoldenHashes(version);
}

export const DT = 1 / 60;

// The golden game_logic scenario's game, shared with the browser test's page.
export { HillGame } from './hill_game.mjs';
