// Race events the worker finds beside the race layer's laps: overtakes
// (one car's distance raced passing another's on track) and lap records
// (a valid lap faster than every earlier one of the race).

/** How far past another car a car must get for a pass to count, m: two
 * cars side by side swap by centimetres and are not passing. */
export const PASS_MARGIN = 1;
/** Two cars further apart than this are not racing each other for a
 * place on track (a car a lap down, or the grid before the start), m. */
export const PASS_RANGE = 50;

export class PassFinder {
  constructor(cars) {
    this.cars = cars;
    // ahead[a * cars + b]: 1 if car a is ahead of car b, -1 if behind, 0
    // not yet known.
    this.ahead = new Int8Array(cars * cars);
  }

  /**
   * The passes since the last call, given every car's distance raced
   * (`raced(car)`, NaN out of the race): `[{ passer, passed }]`, once per
   * pass, with a car needing `PASS_MARGIN` on the other to count.
   */
  observe(raced) {
    const passes = [];
    const n = this.cars;
    const d = Array.from({ length: n }, (_, car) => raced(car));
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        const gap = d[a] - d[b];
        if (!Number.isFinite(gap) || Math.abs(gap) > PASS_RANGE) {
          this.ahead[a * n + b] = 0;
          continue;
        }
        const was = this.ahead[a * n + b];
        const now = gap > PASS_MARGIN ? 1 : gap < -PASS_MARGIN ? -1 : was;
        if (was !== 0 && now !== was) passes.push(now > 0 ? { passer: a, passed: b } : { passer: b, passed: a });
        this.ahead[a * n + b] = now;
      }
    }
    return passes;
  }
}

/** Marks the lap events that set the race's fastest valid lap so far
 * (`record: true`); `best` carries the record between calls. */
export function markRecords(laps, best) {
  for (const e of laps) {
    if (e.kind !== 'lap' || !e.valid) continue;
    if (best.time === null || e.lapTime < best.time) {
      best.time = e.lapTime;
      e.record = true;
    }
  }
  return laps;
}
