// Lap timing for the viewer: the race layer of the skidpad package
// (`RaceTiming`, the same rules and bits as the CLI, the leaderboard and
// the ghost cutter), fed every simulated step by the worker, its laps
// turned into the page's lap events, and each sample's track distances.

import { POSE } from './recording.mjs';

export class RaceLaps {
  /** `sk` is the wasm package, `track` a TrackView, `startPoses` the
   * cars' poses at race time 0 (`POSE` numbers per car). */
  constructor(sk, track, startPoses) {
    this.track = track;
    this.timing = new sk.RaceTiming(track, startPoses);
  }

  /** The cars' poses after the step `step`, which ended at race time
   * `time`; returns a page event per lap completed: `{ kind: 'lap', car,
   * lap, step, time, lapTime, valid, faults }`, `time` being the
   * interpolated crossing that ended lap `lap`, `faults` why it does not
   * count (the race layer's words, the leaderboard's too). */
  observe(step, time, poses) {
    const out = [];
    for (const e of this.timing.observe(time, poses)) {
      if (e.kind !== 'lap') continue;
      out.push({ kind: 'lap', car: e.car, lap: e.lap, step, time: e.end, lapTime: e.time, valid: e.valid, faults: e.faults });
    }
    return out;
  }

  /** Writes sample `i` of `batch` from the race layer, for the cars'
   * `poses`: each car's distance along the track (NaN for a removed car)
   * in `distances`, the distance it has raced from the line (progress:
   * negative on the grid, growing a track length a lap; NaN once
   * retired) in `progress`, the race order (car indices, leader first,
   * NaN past the cars timed) in `order` and each car's gap to the leader
   * (s, NaN while unknown) in `gaps`. */
  sample(poses, batch, i) {
    const cars = poses.length / POSE;
    const offset = i * cars;
    for (let car = 0; car < cars; car++) {
      const x = poses[car * POSE];
      batch.distances[offset + car] = Number.isNaN(x) ? NaN : this.track.locate(x, poses[car * POSE + 1])[0];
      batch.progress[offset + car] = Number.isNaN(x) ? NaN : this.timing.progress(car);
    }
    const standing = this.timing.orderAndGaps(cars);
    batch.order.set(standing.subarray(0, cars), offset);
    batch.gaps.set(standing.subarray(cars), offset);
  }
}

/** What a page adds after a lap's time: nothing for a valid lap, else
 * why it does not count, in the race layer's words (`faults`: "left the
 * track at t = 63.333 s (7.1 m from the centre line, limit 7.0 m)"). */
export function invalidity(lap) {
  if (lap.valid) return '';
  return lap.faults?.length ? ` (invalid: ${lap.faults.join('; ')})` : ' (invalid)';
}
