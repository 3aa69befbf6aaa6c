// Ghost laps raced against the chosen car: each ghost starts when the car
// starts its current lap, is drawn translucent, and reports the live time
// gap (the ghost crate's LapReference, through wasm) and split times at
// thirds of the lap. Any number of ghosts share the one clock.

import { colourOf, GHOST_COLOURS } from './scene.mjs';

/** Split points, as fractions of the lap. */
export const SPLITS = [1 / 3, 2 / 3];

/** How near its ghost's line (m) a car must start for its first lap to
 * count from the recording's start (a standing start on the line). */
const ON_LINE = 5;

export class GhostRace {
  /** `sk` is the loaded wasm package. */
  constructor(sk, panel) {
    this.sk = sk;
    this.panel = panel;
    this.ghosts = [];
    this.track = null;
    this.pose = new Float32Array(8);
  }

  /** The track ghosts are measured on, from its definition's JSON (the
   * recording's `meta.track.definition`), or none. */
  setTrack(definition) {
    this.track = definition ? this.sk.TrackView.fromDefinition(definition) : null;
    for (const g of this.ghosts) this.measure(g);
  }

  /** The ghost's lap reference and start line on the current track. */
  measure(g) {
    g.reference = this.track ? new this.sk.LapReference(g.ghost, this.track) : null;
    g.line = this.track ? this.track.locate(g.frames[1], g.frames[2])[0] : null;
    g.starts = new Map();
  }

  /** Adds a ghost from `.skg` bytes; returns its index. */
  add(bytes, name) {
    const ghost = this.sk.decodeGhost(bytes);
    const frames = ghost.frames();
    const g = {
      name,
      ghost,
      frames,
      player: new this.sk.GhostPlayer(ghost),
      start: frames[0],
      duration: ghost.duration,
    };
    this.measure(g);
    this.ghosts.push(g);
    return this.ghosts.length - 1;
  }

  /** The laps of `car` measured from ghost `g`'s line (the line where
   * the ghost's lap starts, not necessarily the track's): `[{ start,
   * splits }]`, a start at each crossing of the line (interpolated within
   * the step, and the recording's start for a car standing on it) and the
   * times the car then passed each of `SPLITS`. Scanned once, as samples
   * arrive, and cached, so a frame only looks the lap up. */
  laps(recording, car, g) {
    let cache = g.starts.get(car);
    if (!cache || cache.recording !== recording) {
      // `armed`: the car has been away from the line since the last lap
      // start, so the next crossing starts a lap (no double count for a
      // car that starts a few centimetres behind its line).
      cache = { recording, scanned: 0, previous: null, armed: true, behind: 0, laps: [] };
      g.starts.set(car, cache);
    }
    if (g.line === null || !recording.distances) return cache.laps;
    const L = recording.meta.track.length;
    const at = (i, prev, along, target) => {
      const u = (target - prev) / (along - prev);
      return recording.times[i - 1] + u * (recording.times[i] - recording.times[i - 1]);
    };
    for (; cache.scanned < recording.count; cache.scanned++) {
      const i = cache.scanned;
      const along = (((recording.distance(i, car) - g.line) % L) + L) % L;
      const prev = cache.previous;
      if (i === 0 && (along < ON_LINE || along > L - ON_LINE)) {
        cache.laps.push({ start: recording.times[0], splits: [] });
        cache.armed = false;
      } else if (prev !== null && along > prev + L / 2) {
        // Pushed (or reversing) back over the line: the next forward
        // crossing only undoes it, as the ghost crate's LapCutter counts.
        cache.behind += 1;
      } else if (prev !== null && along < prev - L / 2 && cache.behind > 0) {
        cache.behind -= 1;
      } else if (prev !== null && along < prev - L / 2 && cache.armed) {
        cache.laps.push({ start: at(i, prev - L, along, 0), splits: [] });
        cache.armed = false;
      } else if (prev !== null && cache.armed && cache.laps.length > 0) {
        const lap = cache.laps[cache.laps.length - 1];
        const target = SPLITS[lap.splits.length] * L;
        if (lap.splits.length < SPLITS.length && prev < target && along >= target) {
          lap.splits.push(at(i, prev, along, target));
        }
      }
      if (along > 2 * ON_LINE && along < L - 2 * ON_LINE) cache.armed = true;
      cache.previous = along;
    }
    return cache.laps;
  }

  /** Start times of `car`'s laps measured from ghost `g`'s line. */
  lapStarts(recording, car, g) {
    return this.laps(recording, car, g).map((lap) => lap.start);
  }

  /** Places every ghost for time `t` (calls `place(index, pose)`), and
   * updates the panel with gaps and splits against `car` at `carPose`. */
  update(recording, car, t, carPose, place) {
    if (this.ghosts.length === 0) return;
    const rows = [];
    this.ghosts.forEach((g, k) => {
      let lap = null;
      for (const l of this.laps(recording, car, g)) {
        if (l.start <= t) lap = l;
        else break;
      }
      const lapTime = lap === null ? null : t - lap.start;
      const visible = lapTime !== null && lapTime <= g.duration + 1;
      if (visible) {
        g.player.poseAtInto(g.start + Math.min(lapTime, g.duration), this.pose);
        place(k, this.pose);
      } else {
        place(k, null);
      }
      const gap = visible && g.reference ? g.reference.gap(carPose[0], carPose[1], lapTime + g.start) : undefined;
      rows.push({
        k,
        name: g.name,
        gap,
        lapTime,
        splits: visible ? this.splits(lap, t, g) : [],
      });
    });
    this.show(rows);
  }

  /** The car's split deltas against ghost `g` in `lap`, for the splits
   * passed by time `t` (null where the ghost never got there). */
  splits(lap, t, g) {
    if (!g.reference) return [];
    const L = g.reference.lapLength;
    return lap.splits
      .filter((time) => time <= t)
      .map((time, k) => {
        const ghostTime = g.reference.timeAt(SPLITS[k] * L);
        return ghostTime === undefined ? null : time - lap.start - (ghostTime - g.start);
      });
  }

  show(rows) {
    const signed = (v) => (v === null || v === undefined ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`);
    this.panel.replaceChildren(
      ...rows.map((r) => {
        const row = document.createElement('div');
        row.className = 'ghost-row';
        row.dataset.ghost = String(r.k);
        row.dataset.gap = r.gap === undefined ? '' : String(r.gap);
        row.dataset.splits = JSON.stringify(r.splits);
        const swatch = `#${colourOf(r.k, GHOST_COLOURS).toString(16).padStart(6, '0')}`;
        row.innerHTML = `<span class="swatch" style="background:${swatch}"></span>`
          + `<span class="ghost-name"></span> gap <b>${signed(r.gap)}</b> s`
          + ` · splits ${r.splits.map(signed).join(' / ') || '–'}`
          + (r.lapTime === null ? ' · waiting for the lap line' : '');
        row.querySelector('.ghost-name').textContent = r.name;
        return row;
      }),
    );
  }
}
