// Ghost laps raced against the chosen car: each ghost starts when the car
// starts its current lap, is drawn translucent, and reports the live time
// gap (the ghost crate's LapReference, through wasm) and split times at
// thirds of the lap. Any number of ghosts share the one clock.

import { colourOf, GHOST_COLOURS } from './scene.mjs';

/** Split points, as fractions of the lap. */
export const SPLITS = [1 / 3, 2 / 3];

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
    for (const g of this.ghosts) g.reference = this.referenceFor(g.ghost);
  }

  referenceFor(ghost) {
    return this.track ? new this.sk.LapReference(ghost, this.track) : null;
  }

  /** Adds a ghost from `.skg` bytes; returns its index. */
  add(bytes, name) {
    const ghost = this.sk.decodeGhost(bytes);
    const frames = ghost.frames();
    this.ghosts.push({
      name,
      ghost,
      player: new this.sk.GhostPlayer(ghost),
      start: frames[0],
      duration: ghost.duration,
      reference: this.referenceFor(ghost),
    });
    return this.ghosts.length - 1;
  }

  /** Lap start (s) of `car` at time `t`: its last lap-line crossing, or
   * the recording's start before the first. */
  static lapStart(recording, car, t) {
    let start = null;
    for (const e of recording.laps(car)) {
      if (e.time <= t) start = e.time;
      else break;
    }
    return start;
  }

  /** Places every ghost for time `t` (calls `place(index, pose)`), and
   * updates the panel with gaps and splits against `car` at `carPose`. */
  update(recording, car, t, carPose, place) {
    if (this.ghosts.length === 0) return;
    const lapStart = GhostRace.lapStart(recording, car, t);
    const lapTime = lapStart === null ? null : t - lapStart;
    const rows = [];
    this.ghosts.forEach((g, k) => {
      let visible = lapTime !== null && lapTime <= g.duration + 1;
      if (visible) {
        g.player.poseAtInto(g.start + Math.min(lapTime, g.duration), this.pose);
        place(k, this.pose);
      } else {
        place(k, null);
      }
      const gap = visible && g.reference ? g.reference.gap(carPose[0], carPose[1], lapTime + g.start) : undefined;
      rows.push({ k, name: g.name, gap, splits: visible ? this.splits(recording, car, lapStart, t, g) : [] });
    });
    this.show(rows, lapTime);
  }

  /** The car's split deltas against ghost `g` for the lap started at
   * `lapStart`, for the splits already passed by time `t`. */
  splits(recording, car, lapStart, t, g) {
    if (!g.reference || !recording.distances) return [];
    const L = g.reference.lapLength;
    const out = [];
    let i = recording.sampleAt(lapStart);
    const last = recording.sampleAt(t);
    let next = 0;
    let previous = null;
    for (; i <= last && next < SPLITS.length; i++) {
      const x = recording.value(i, car, 0);
      const y = recording.value(i, car, 1);
      const d = g.reference.distanceFromStart(x, y);
      // Ignore the wrap just after the line, where the distance is ~L.
      const along = d > L * 0.9 && recording.times[i] - lapStart < 5 ? 0 : d;
      while (next < SPLITS.length && along >= SPLITS[next] * L && previous !== null) {
        const playerTime = recording.times[i] - lapStart;
        const ghostTime = g.reference.timeAt(SPLITS[next] * L);
        out.push(ghostTime === undefined ? null : playerTime - (ghostTime - g.start));
        next += 1;
      }
      previous = along;
    }
    return out;
  }

  show(rows, lapTime) {
    const signed = (v) => (v === null || v === undefined ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`);
    this.panel.replaceChildren(
      ...rows.map((r) => {
        const row = document.createElement('div');
        row.className = 'ghost-row';
        row.dataset.ghost = String(r.k);
        row.dataset.gap = r.gap === undefined ? '' : String(r.gap);
        const swatch = `#${colourOf(r.k, GHOST_COLOURS).toString(16).padStart(6, '0')}`;
        row.innerHTML = `<span class="swatch" style="background:${swatch}"></span>`
          + `<span class="ghost-name"></span> gap <b>${signed(r.gap)}</b> s`
          + ` · splits ${r.splits.map(signed).join(' / ') || '–'}`
          + (lapTime === null ? ' · waiting for the lap line' : '');
        row.querySelector('.ghost-name').textContent = r.name;
        return row;
      }),
    );
  }
}
