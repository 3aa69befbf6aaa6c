// An older simulation version's archived core (cores/ABI.md), for the
// viewer's worker: only the module of the replay's version is fetched
// from `/cores/`, checked against the manifest's blake3 before it is
// instantiated, and driven through its plain ABI. It has no imports, so a
// page runs it with nothing but WebAssembly.

/** The archive's manifest, as `skidpad view` serves it. */
async function manifest() {
  const response = await fetch('/cores/manifest.json');
  if (!response.ok) throw new Error(`the archive of old cores is not served here (/cores/manifest.json: ${response.status})`);
  return response.json();
}

/** `bytes` inflated from gzip by the browser's own decoder. */
async function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * The archived core of `version`, checked and instantiated.
 * @param {typeof import('skidpad')} sk the npm package (for blake3)
 * @param {number} version
 */
export async function loadArchivedCore(sk, version) {
  const archive = await manifest();
  const entry = archive.cores.find((c) => c.version === version);
  if (!entry) {
    const held = archive.cores.map((c) => c.version).join(', ');
    throw new Error(`simulation version ${version} has no archived core (the archive holds versions ${held}); this viewer cannot play it`);
  }
  const response = await fetch(`/cores/${entry.module}`);
  if (!response.ok) throw new Error(`cannot fetch /cores/${entry.module}: ${response.status}`);
  const module = await gunzip(new Uint8Array(await response.arrayBuffer()));
  const found = sk.blake3Hex(module);
  if (found !== entry.blake3) {
    throw new Error(`the archived core of simulation version ${version} does not match the manifest (blake3 ${found}, pinned ${entry.blake3}); it was not run`);
  }
  const { instance } = await WebAssembly.instantiate(module, {});
  // The exports cores/ABI.md lists; WebAssembly's own types cannot say so.
  const exports = /** @type {any} */ (instance.exports);
  return new ArchivedCore(exports, version, module.length);
}

/** One instance of an archived core, with one replay open at a time. */
class ArchivedCore {
  constructor(exports, version, moduleBytes) {
    this.exports = exports;
    this.version = version;
    this.moduleBytes = moduleBytes;
    if (exports.skidpad_abi_version() !== 1 || exports.skidpad_simulation_version() !== version) {
      throw new Error(`the archived core of simulation version ${version} does not speak ABI 1 for that version`);
    }
  }

  /** The last answer's bytes, copied out (memory may grow and move). */
  answerBytes() {
    const e = this.exports;
    const ptr = e.skidpad_result_ptr();
    const len = e.skidpad_result_len();
    return new Uint8Array(e.memory.buffer.slice(ptr, ptr + len));
  }

  /** The last answer as JSON; a refusal throws with the core's words. */
  answer(status) {
    const value = JSON.parse(new TextDecoder().decode(this.answerBytes()));
    if (status !== 0) throw new Error(`simulation version ${this.version} (archived) refused the replay: ${value.error}`);
    return value;
  }

  /** Opens `bytes` for playback; returns the header (cores/ABI.md). */
  open(bytes) {
    const e = this.exports;
    const ptr = e.skidpad_alloc(bytes.length);
    if (ptr === 0 && bytes.length !== 0) throw new Error(`the archived core could not allocate ${bytes.length} bytes`);
    new Uint8Array(e.memory.buffer, ptr, bytes.length).set(bytes);
    const status = e.skidpad_open(ptr, bytes.length);
    e.skidpad_free(ptr, bytes.length);
    return this.answer(status);
  }

  /** Plays one step: `{ step, more, desyncs }`. */
  advance() {
    return this.answer(this.exports.skidpad_advance());
  }

  /** `{ step, desyncs, world_hash, first_desync }`. */
  state() {
    return this.answer(this.exports.skidpad_state());
  }

  /** 8 f64 per car (x, y, z, yaw, pitch, roll, steer, speed), as
   * `ReplayPlayer.poses()` gives them. */
  poseValues(cars) {
    const status = this.exports.skidpad_pose_values(cars);
    if (status !== 0) this.answer(status);
    return new Float64Array(this.answerBytes().buffer);
  }

  close() {
    this.exports.skidpad_close();
  }
}
