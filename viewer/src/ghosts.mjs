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

  setTrack(name) {
    this.track = name ? new this.sk.TrackView(name) : null;
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

  /** When `car` started laps measured from ghost `g`'s line (the line
   * where the ghost's lap starts, not necessarily the track's): each
   * crossing of it, interpolated within the step, and the recording's
   * start for a car standing on it. Scanned incrementally and cached. */
  lapStarts(recording, car, g) {
    let cache = g.starts.get(car);
    if (!cache || cache.recording !== recording) {
      // `armed`: the car has been away from the line since the last lap
      // start, so the next crossing starts a lap (no double count for a
      // car that starts a few centimetres behind its line).
      cache = { recording, scanned: 0, previous: null, armed: true, times: [] };
      g.starts.set(car, cache);
    }
    if (g.line === null || !recording.distances) return cache.times;
    const L = recording.meta.track.length;
    for (; cache.scanned < recording.count; cache.scanned++) {
      const i = cache.scanned;
      const along = (((recording.distance(i, car) - g.line) % L) + L) % L;
      const near = along < ON_LINE || along > L - ON_LINE;
      if (i === 0 && near) {
        cache.times.push(recording.times[0]);
        cache.armed = false;
      }
      const prev = cache.previous;
      if (prev !== null && along < prev - L / 2 && cache.armed) {
        const u = (L - prev) / (L - prev + along);
        cache.times.push(recording.times[i - 1] + u * (recording.times[i] - recording.times[i - 1]));
        cache.armed = false;
      }
      if (along > 2 * ON_LINE && along < L - 2 * ON_LINE) cache.armed = true;
      cache.previous = along;
    }
    return cache.times;
  }

  /** Places every ghost for time `t` (calls `place(index, pose)`), and
   * updates the panel with gaps and splits against `car` at `carPose`. */
  update(recording, car, t, carPose, place) {
    if (this.ghosts.length === 0) return;
    const rows = [];
    this.ghosts.forEach((g, k) => {
      let lapStart = null;
      for (const s of this.lapStarts(recording, car, g)) {
        if (s <= t) lapStart = s;
        else break;
      }
      const lapTime = lapStart === null ? null : t - lapStart;
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
        splits: visible ? this.splits(recording, car, lapStart, t, g) : [],
      });
    });
    this.show(rows);
  }

  /** The car's split deltas against ghost `g` for the lap started at
   * `lapStart`, for the splits already passed by time `t`. */
  splits(recording, car, lapStart, t, g) {
    if (!g.reference || !recording.distances) return [];
    const L = g.reference.lapLength;
    const out = [];
    const last = recording.sampleAt(t);
    let next = 0;
    for (let i = recording.sampleAt(lapStart) + 1; i <= last && next < SPLITS.length; i++) {
      const along = (((recording.distance(i, car) - g.line) % L) + L) % L;
      // Just after the line the distance may still read as a whole lap.
      if (along > L * 0.9 && recording.times[i] - lapStart < 5) continue;
      while (next < SPLITS.length && along >= SPLITS[next] * L) {
        const playerTime = recording.times[i] - lapStart;
        const ghostTime = g.reference.timeAt(SPLITS[next] * L);
        out.push(ghostTime === undefined ? null : playerTime - (ghostTime - g.start));
        next += 1;
      }
    }
    return out;
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
