// Lap crossings seen in a sequence of poses: the lap line is the track's
// distance 0 (as the leaderboard measures it), the crossing time is
// interpolated within the step, and the first crossing starts lap 1.
// Used by the worker; the page gets the events it produces.

/** How near the line (m) both sides of a step must be to count as a
 * crossing rather than a jump across the track. */
const NEAR_LINE = 100;

export class LapDetector {
  /** `track` is a wasm TrackView; `cars` the number of cars. */
  constructor(track, cars) {
    this.track = track;
    this.length = track.length;
    this.previous = Array.from({ length: cars }, () => null);
    this.lastCrossing = new Array(cars).fill(null);
    this.laps = new Array(cars).fill(0);
    // Set when a car crossed the line backwards: its next forward
    // crossing only undoes that.
    this.behind = new Array(cars).fill(0);
    this.pending = [];
  }

  /** Records every car's track distance at `step` (time `time`, poses
   * packed eight per car) into `out[offset + car]` and notes crossings. */
  observe(step, time, poses, out, offset) {
    const L = this.length;
    for (let car = 0; car < this.previous.length; car++) {
      if (Number.isNaN(poses[car * 8])) {
        // Removed from the race: no distance, and no lap from here on.
        out[offset + car] = NaN;
        this.previous[car] = null;
        continue;
      }
      const [distance] = this.track.locate(poses[car * 8], poses[car * 8 + 1]);
      out[offset + car] = distance;
      const prev = this.previous[car];
      this.previous[car] = { distance, time };
      if (!prev) continue;
      if (prev.distance > L - NEAR_LINE && distance < NEAR_LINE) {
        if (this.behind[car] > 0) {
          this.behind[car] -= 1;
          continue;
        }
        const before = L - prev.distance;
        const u = before / (before + distance);
        const at = prev.time + u * (time - prev.time);
        this.laps[car] += 1;
        const last = this.lastCrossing[car];
        this.pending.push({
          kind: 'lap',
          car,
          lap: this.laps[car],
          step,
          time: at,
          // The lap just completed; null for the crossing that starts lap 1.
          lapTime: last === null ? null : at - last,
        });
        this.lastCrossing[car] = at;
      } else if (prev.distance < NEAR_LINE && distance > L - NEAR_LINE) {
        this.behind[car] += 1;
      }
    }
  }

  /** The crossings noted since the last call. */
  take() {
    const events = this.pending;
    this.pending = [];
    return events;
  }
}
