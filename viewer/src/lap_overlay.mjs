// Laps on a distance axis, to overlay one lap on another as lap-analysis
// tools do: a lap's samples with the distance raced since the lap's
// line (the race layer's progress), and another lap's values carried
// onto the first lap's distances.

import { wrapAngle } from './recording.mjs';

/**
 * The samples of the lap `lap` ended (a viewer lap event: `time` its end,
 * `lapTime` its length) for `car`: `{ times, x, samples }`, `x` the
 * distance raced from the line that began it (m), `samples` the sample
 * indices; only samples whose distance grows (a car that stops or backs
 * up keeps its first pass).
 */
export function lapSamples(rec, car, lap, trackLength) {
  const start = lap.time - lap.lapTime;
  const base = (lap.lap - 1) * trackLength;
  const first = rec.sampleAt(start);
  const times = [];
  const x = [];
  const samples = [];
  for (let i = first; i < rec.count && rec.times[i] <= lap.time; i++) {
    if (rec.times[i] < start) continue;
    const d = rec.raced(i, car) - base;
    if (!Number.isFinite(d) || (x.length > 0 && d <= x[x.length - 1])) continue;
    times.push(rec.times[i]);
    x.push(d);
    samples.push(i);
  }
  return { times, x, samples };
}

/**
 * `values` (given at the growing distances `from`) at the distances `to`,
 * interpolated along a straight line (`discrete`: the value at or before;
 * `lerpAngle`: the shorter way round), null outside `from`'s span.
 */
export function atDistances(from, values, to, mode = 'lerp') {
  const out = new Array(to.length).fill(null);
  let j = 0;
  for (let k = 0; k < to.length; k++) {
    const d = to[k];
    if (from.length === 0 || d < from[0] || d > from[from.length - 1]) continue;
    while (j + 1 < from.length && from[j + 1] < d) j++;
    if (from[j] === d || j + 1 >= from.length) {
      out[k] = values[j];
      continue;
    }
    const a = values[j];
    const b = values[j + 1];
    const u = (d - from[j]) / (from[j + 1] - from[j]);
    if (mode === 'discrete') out[k] = u >= 1 ? b : a;
    else if (mode === 'lerpAngle') out[k] = a + wrapAngle(b - a) * u;
    else out[k] = a + (b - a) * u;
  }
  return out;
}

/** The time at distance `d` along a lap's samples (for the chart's
 * click), or null outside it. */
export function timeAtDistance(lap, d) {
  const t = atDistances(lap.x, lap.times, [d])[0];
  return t;
}
