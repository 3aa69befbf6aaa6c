// No node imports: the browser test's page loads this module too.

// The golden "game_logic" scenario's game, written again in JS: a hill
// (8 % grade, 2 % cross slope) for 150 < x < 260, |y| < 30, and a log of
// the steps at which car 0 crosses x = 100. Its state bytes are those of
// the Rust HillGame: last x as f64 (NaN when unknown), then each
// checkpoint step as u64, all little-endian.
export class HillGame {
  constructor() {
    this.lastX = null;
    this.checkpoints = [];
    this.beforeStepCalls = [];
    this.restores = [];
  }

  beforeStep(step, world) {
    this.beforeStepCalls.push(step);
    for (const id of world.carIds()) {
      const p = world.pose(id);
      const onHill = p.x > 150 && p.x < 260 && Math.abs(p.y) < 30;
      world.setGroundSlope(id, onHill ? 0.08 : 0, onHill ? 0.02 : 0);
    }
    const x = world.pose(0).x;
    if (this.lastX !== null && (this.lastX < 100) !== (x < 100)) this.checkpoints.push(step);
    this.lastX = x;
  }

  save() {
    const view = new DataView(new ArrayBuffer(8 + 8 * this.checkpoints.length));
    view.setFloat64(0, this.lastX ?? NaN, true);
    this.checkpoints.forEach((c, k) => view.setBigUint64(8 + 8 * k, BigInt(c), true));
    return new Uint8Array(view.buffer);
  }

  load(bytes) {
    this.lastX = null;
    this.checkpoints = [];
    if (bytes.length < 8) return;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const x = view.getFloat64(0, true);
    this.lastX = Number.isNaN(x) ? null : x;
    for (let at = 8; at + 8 <= bytes.length; at += 8) {
      this.checkpoints.push(Number(view.getBigUint64(at, true)));
    }
  }

  // The object handed to ReplayPlayer / verifyReplay.
  hooks() {
    return {
      beforeStep: (step, world) => this.beforeStep(step, world),
      onRestore: (step, state) => {
        this.restores.push(step);
        this.load(state);
      },
      keyframeState: () => this.save(),
    };
  }
}
