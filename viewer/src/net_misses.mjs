// The race page's record of its prediction's misses, each with what
// explains it. The page's client simulates its own car alone, so a car
// that touches it is the one cause of a misprediction the design allows;
// a miss with no other car within touching distance at its tick is a bug
// (of the wire, the prediction or the core), and the online race check
// fails on it.

/** Centre-to-centre distance, m, within which another car explains a
 * miss: a car length and a bit (the presets are 4.2–4.8 m long, the
 * positions on the wire rounded to 1 cm, and a frame may show the tick
 * after the touch). Cars farther apart than this cannot be in contact. */
export const CONTACT_RANGE_M = 6;

/** A decoded frame's car rows: `{id, row}` with `row` null for a car gone. */
const carRows = (frame) => /** @type {Array<{id: number, row: Record<string, number> | null}>} */ (frame.blocks.cars ?? []);

export class MissLog {
  /** @param {number} seat this page's seat */
  constructor(seat) {
    this.seat = seat;
    /** Misses with another car within `CONTACT_RANGE_M`. */
    this.explained = 0;
    /** Misses with no car near: each one a bug. */
    this.unexplained = 0;
    /** Contact events the server sent that name this seat. */
    this.contacts = 0;
    /** The most recent unexplained miss: tick, fields and the nearest car. */
    this.lastUnexplained = null;
  }

  /** Counts the frame's contact events that involve this seat. */
  frame(frame) {
    const rows = /** @type {Array<Record<string, number>>} */ (frame.blocks.contact ?? []);
    this.contacts += rows.filter((r) => r.a === this.seat || r.b === this.seat).length;
  }

  /** Files a misprediction (`{tick, fields}` from the client) found in
   * `frame`, by the nearest other car in that frame's cars block. */
  miss(miss, frame) {
    const near = this.nearest(frame);
    if (near && near.distance <= CONTACT_RANGE_M) {
      this.explained += 1;
      return;
    }
    this.unexplained += 1;
    this.lastUnexplained = { tick: miss.tick, fields: miss.fields.map((f) => f.field), nearest: near };
  }

  /** The nearest other car to this seat's car in `frame`, or null. */
  nearest(frame) {
    const rows = carRows(frame);
    const mine = rows.find((e) => e.id === this.seat)?.row;
    if (!mine) return null;
    let best = null;
    for (const { id, row } of rows) {
      if (id === this.seat || !row) continue;
      const distance = Math.hypot(row.x - mine.x, row.y - mine.y, row.z - mine.z);
      if (!best || distance < best.distance) best = { seat: id, distance };
    }
    return best;
  }

  /** What the page shows of it. */
  summary() {
    return { explained: this.explained, unexplained: this.unexplained, contacts: this.contacts, lastUnexplained: this.lastUnexplained };
  }
}
