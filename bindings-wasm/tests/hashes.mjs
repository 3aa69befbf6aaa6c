// golden/v<version>/HASHES read as the Rust side reads it
// (golden/src/hashes.rs): one entry a line, `<file> <key> <hash>`, where
// the key is a keyframe step, `final` or (for a ghost) `file`; `#` starts a
// comment. Pure, so node tests and browser pages share it.

/** A HASHES text as `{ file: { keyframe step | 'final' | 'file': hash } }`. */
export function parseHashes(text) {
  const table = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [file, key, hash] = line.split(/\s+/);
    (table[file] ??= {})[key] = hash;
  }
  return table;
}
