// The pinned hashes as the JavaScript tests read them, from the files the
// Rust tests read (one home each):
// - golden/v<version>/HASHES (golden/src/hashes.rs writes and parses it):
//   the world hash at every keyframe and at the end of each golden replay,
//   and each ghost file's blake3;
// - sim-core/tests/data/core_golden_hashes.txt: the core's own scenarios'
//   final hashes (sim-core/tests/golden.rs).
// The parser (hashes.mjs) is apart, so a browser page can use it on the
// text it fetched.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHashes } from './hashes.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** golden/v<version>/HASHES, parsed, with the corpus's directory. */
export function goldenHashes(version) {
  const dir = join(repoRoot, 'golden', `v${version}`);
  return { dir, table: parseHashes(readFileSync(join(dir, 'HASHES'), 'utf8')) };
}

/** The pinned final hash of the core's scenario `name` (`reference`,
 * `hill`, `hillcrest`). */
export function coreGoldenHash(name) {
  const text = readFileSync(join(repoRoot, 'sim-core/tests/data/core_golden_hashes.txt'), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`sim-core/tests/data/core_golden_hashes.txt has no ${name} line`);
  return line.split(/\s+/)[1];
}
