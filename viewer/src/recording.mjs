// What the worker re-simulated, held as tables the page can read at any
// time without simulating: sample times, every car's pose at every step,
// track distances, telemetry and events. `poseAt` implements the playback
// contract of the seeds' viewer guide: poses between samples are
// interpolated (cubic Hermite on position, shortest-arc on yaw), except
// across a discontinuity (a car that moved further in a step than its
// speed allows, e.g. a reset), where the pose snaps to the sample after
// the cut.

/** A car's pose as the package lays it out (`poseFields()`, which a unit
 * test holds this to): what the interpolation below is written for. */
export const POSE_FIELDS = ['x', 'y', 'z', 'yaw', 'pitch', 'roll', 'steer', 'speed'];
/** Values per car in a pose. */
export const POSE = POSE_FIELDS.length;

/** A step counts as a cut for a car that moved more than this factor of
 * its speed × dt plus `CUT_SLACK` metres. */
const CUT_FACTOR = 1.5;
const CUT_SLACK = 0.5;

/** An angle difference taken the shorter way round, in (−π, π]. */
export function wrapAngle(a) {
  const turn = 2 * Math.PI;
  return a - turn * Math.round(a / turn);
}

/** A typed array grown by doubling (live races arrive without an end). */
function grown(array, needed) {
  if (array.length >= needed) return array;
  const bigger = new array.constructor(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** Index of the last of the first `count` (rising) `values` at or before
 * `x`; 0 before the first, the last after the end. */
function lastAtOrBefore(values, count, x) {
  let lo = 0;
  let hi = count - 1;
  if (hi <= 0 || x <= values[0]) return 0;
  if (x >= values[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (values[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

export class Recording {
  /** `meta` is the worker's meta message. */
  constructor(meta) {
    this.meta = meta;
    this.cars = meta.cars.length;
    this.channels = meta.channels;
    const capacity = meta.samples ?? 1024;
    this.count = 0;
    /** Step number of each sample (every step, or every `meta.stride`-th
     * for a replay too long to hold whole; a late live join starts late). */
    this.steps = new Float64Array(capacity);
    this.times = new Float64Array(capacity);
    this.poses = new Float64Array(capacity * this.cars * POSE);
    this.distances = meta.track ? new Float64Array(capacity * this.cars) : null;
    this.progress = meta.track ? new Float64Array(capacity * this.cars) : null;
    this.order = meta.track ? new Float64Array(capacity * this.cars) : null;
    this.gaps = meta.track ? new Float64Array(capacity * this.cars) : null;
    this.cuts = new Uint8Array(capacity * this.cars);
    this.telemetry = new Float32Array(capacity * this.cars * this.channels.length);
    this.events = [];
    this.finished = false;
  }

  /** Adds a batch of samples from the worker. */
  append(batch) {
    const at = batch.from;
    if (at !== this.count) throw new Error(`samples from ${at} after ${this.count}`);
    const n = at + batch.count;
    const cars = this.cars;
    this.steps = grown(this.steps, n);
    this.times = grown(this.times, n);
    this.poses = grown(this.poses, n * cars * POSE);
    this.cuts = grown(this.cuts, n * cars);
    this.steps.set(batch.steps, at);
    this.times.set(batch.times, at);
    this.poses.set(batch.poses, at * cars * POSE);
    if (this.distances && batch.distances) {
      this.distances = grown(this.distances, n * cars);
      this.distances.set(batch.distances, at * cars);
      this.progress = grown(this.progress, n * cars);
      this.progress.set(batch.progress, at * cars);
      this.order = grown(this.order, n * cars);
      this.order.set(batch.order, at * cars);
      this.gaps = grown(this.gaps, n * cars);
      this.gaps.set(batch.gaps, at * cars);
    }
    if (batch.telemetry.length > 0) {
      const rowWidth = cars * this.channels.length;
      this.telemetry = grown(this.telemetry, n * rowWidth);
      this.telemetry.set(batch.telemetry, at * rowWidth);
    }
    for (let i = Math.max(at, 1); i < n; i++) this.markCuts(i);
    this.count = n;
    this.events.push(...batch.events);
  }

  /** Cars that joined a live race (`cars`: every car's description, the
   * new ones last): every sample held so far gets them, without a pose
   * (the first sample that has one is a cut, so nothing is interpolated
   * from before they came). */
  addCars(cars) {
    const from = this.cars;
    const to = cars.length;
    if (to <= from) return;
    const samples = this.steps.length;
    const widen = (array, per, fill) => {
      if (!array) return array;
      const out = new array.constructor(samples * to * per).fill(fill);
      for (let i = 0; i < this.count; i++) out.set(array.subarray(i * from * per, (i + 1) * from * per), i * to * per);
      return out;
    };
    this.poses = widen(this.poses, POSE, NaN);
    this.distances = widen(this.distances, 1, NaN);
    this.progress = widen(this.progress, 1, NaN);
    this.order = widen(this.order, 1, NaN);
    this.gaps = widen(this.gaps, 1, NaN);
    this.cuts = widen(this.cuts, 1, 0);
    this.telemetry = widen(this.telemetry, this.channels.length, NaN);
    this.meta.cars = cars;
    this.cars = to;
  }

  markCuts(i) {
    const dt = this.times[i] - this.times[i - 1];
    for (let car = 0; car < this.cars; car++) {
      const a = (i - 1) * this.cars * POSE + car * POSE;
      const b = a + this.cars * POSE;
      const p = this.poses;
      const jump = Math.hypot(p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]);
      const allowed = Math.max(p[a + 7], p[b + 7]) * dt * CUT_FACTOR + CUT_SLACK;
      if (!(jump <= allowed) || !(dt > 0)) this.cuts[i * this.cars + car] = 1;
    }
  }

  get start() {
    return this.count > 0 ? this.times[0] : 0;
  }

  get end() {
    return this.count > 0 ? this.times[this.count - 1] : 0;
  }

  /** The sample at or before time `t` (clamped to the samples held). */
  sampleAt(t) {
    return lastAtOrBefore(this.times, this.count, t);
  }

  /** Step number of sample `i`. */
  stepOf(i) {
    return this.steps[i];
  }

  /** The sample of step `step`, or the last one before it (clamped). */
  sampleOfStep(step) {
    return lastAtOrBefore(this.steps, this.count, step);
  }

  /** One value of a car's pose at sample `i`. */
  value(i, car, field) {
    return this.poses[(i * this.cars + car) * POSE + field];
  }

  /** Velocity of one coordinate at sample `i`: central difference, or one-
   * sided at the ends and next to a cut. */
  slope(i, car, field) {
    const cars = this.cars;
    const hasBefore = i > 0 && !this.cuts[i * cars + car];
    const hasAfter = i + 1 < this.count && !this.cuts[(i + 1) * cars + car];
    const a = hasBefore ? i - 1 : i;
    const b = hasAfter ? i + 1 : i;
    if (a === b) return 0;
    return (this.value(b, car, field) - this.value(a, car, field)) / (this.times[b] - this.times[a]);
  }

  /** The pose of `car` at time `t`, written into `out` (8 values). At a
   * sample's own time the sample's values are returned exactly. */
  poseAt(t, car, out) {
    const i = this.sampleAt(t);
    const base = (i * this.cars + car) * POSE;
    const p = this.poses;
    if (i + 1 >= this.count || t <= this.times[i]) {
      for (let f = 0; f < POSE; f++) out[f] = p[base + f];
      return out;
    }
    const next = base + this.cars * POSE;
    if (this.cuts[(i + 1) * this.cars + car]) {
      // Across a discontinuity: no blending, the sample after the cut.
      for (let f = 0; f < POSE; f++) out[f] = p[next + f];
      return out;
    }
    const dt = this.times[i + 1] - this.times[i];
    const u = (t - this.times[i]) / dt;
    const u2 = u * u;
    const u3 = u2 * u;
    const h00 = 2 * u3 - 3 * u2 + 1;
    const h10 = u3 - 2 * u2 + u;
    const h01 = -2 * u3 + 3 * u2;
    const h11 = u3 - u2;
    for (let f = 0; f < 3; f++) {
      out[f] = h00 * p[base + f] + h10 * dt * this.slope(i, car, f)
        + h01 * p[next + f] + h11 * dt * this.slope(i + 1, car, f);
    }
    out[3] = p[base + 3] + wrapAngle(p[next + 3] - p[base + 3]) * u;
    for (let f = 4; f < POSE; f++) out[f] = p[base + f] + (p[next + f] - p[base + f]) * u;
    return out;
  }

  /** Track distance of `car` at sample `i`, or NaN without a track. */
  distance(i, car) {
    return this.distances ? this.distances[i * this.cars + car] : NaN;
  }

  /** The race layer's order at sample `i`: car indices, leader first,
   * NaN past the cars it timed (empty without a track). */
  orderAt(i) {
    return this.order ? this.order.subarray(i * this.cars, (i + 1) * this.cars) : new Float64Array(0);
  }

  /** `car`'s gap to the leader at sample `i` (the race layer's, s), or
   * NaN while unknown. */
  gap(i, car) {
    return this.gaps ? this.gaps[i * this.cars + car] : NaN;
  }

  /** The distance `car` has raced from the line at sample `i` (the race
   * layer's progress), or NaN without a track or once retired. */
  raced(i, car) {
    return this.progress ? this.progress[i * this.cars + car] : NaN;
  }

  /** Channel `k` (its index in `channels`) of `car` at sample `i`. */
  channel(i, car, k) {
    return this.telemetry[(i * this.cars + car) * this.channels.length + k];
  }

  /** One channel of one car over the samples held: `[times, values]`. */
  series(car, channel) {
    const k = this.channels.indexOf(channel);
    const width = this.channels.length;
    const times = this.times.slice(0, this.count);
    const values = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) values[i] = this.telemetry[(i * this.cars + car) * width + k];
    return [times, values];
  }

  /** The lap events of `car`, in time order. */
  laps(car) {
    return this.events.filter((e) => e.kind === 'lap' && e.car === car);
  }
}
