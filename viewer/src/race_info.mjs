// Race information over the 3D view: the standings (position, car, lap,
// gap to the leader, the lap starred while a reset voids it; a click
// follows that car) and a dashboard of the
// followed car (race clock, position, lap, last and best lap, speed,
// gear, rpm, throttle, brake and steer). Laps and progress are the race layer's (the
// worker's `RaceTiming`, the same rules as every other skidpad tool);
// nothing here times a lap of its own.

import { carTitle } from './scene_data.mjs';
import { formatTime } from './timeline.mjs';
import { invalidity } from './laps.mjs';

/**
 * The standings at sample `i`: `[{ car, position, raced, laps, gap,
 * lapped, reset }]` in the race layer's order (its `standings`, recorded
 * per sample by the worker), where `raced` is the distance raced from the
 * line (m), `laps` the laps completed by the sample's time, `gap` the
 * race layer's time behind the leader (null for the leader or while
 * unknown), `lapped` how many laps the leader is ahead and `reset` false
 * (the caller marks a lap a reset voids, `resetThisLap`). Cars out of the
 * race (no progress) come last, with `position` null.
 */
export function standingsAt(rec, i, lapTimes, trackLength) {
  const t = rec.times[i];
  const running = [];
  const out = [];
  const listed = new Set();
  const row = (car) => ({
    car, position: null, raced: rec.raced(i, car), laps: countAtOrBefore(lapTimes[car] ?? [], t),
    gap: null, lapped: 0, reset: false,
  });
  for (const car of rec.orderAt(i)) {
    if (Number.isNaN(car)) continue;
    listed.add(car);
    const r = row(car);
    if (!Number.isFinite(r.raced)) {
      out.push(r);
      continue;
    }
    r.position = running.length + 1;
    if (r.position > 1) {
      const gap = rec.gap(i, car);
      r.gap = Number.isFinite(gap) ? gap : null;
      r.lapped = trackLength > 0 ? Math.floor((running[0].raced - r.raced) / trackLength) : 0;
    }
    running.push(r);
  }
  for (let car = 0; car < rec.cars; car++) if (!listed.has(car)) out.push(row(car));
  return [...running, ...out];
}

/** Whether a car was reset during the lap it is on at time `t`: a reset
 * (its sorted `resetTimes`) after its last lap crossing at or before `t`
 * (its sorted `lapTimes`). The race layer voids that lap. */
export function resetThisLap(resetTimes, lapTimes, t) {
  const resets = countAtOrBefore(resetTimes, t);
  if (resets === 0) return false;
  const laps = countAtOrBefore(lapTimes, t);
  return laps === 0 || resetTimes[resets - 1] > lapTimes[laps - 1];
}

/** How many of the sorted `times` are at or before `t`. */
function countAtOrBefore(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Gap text: `+1.234` s, `+2 laps`, or empty for the leader. */
export function gapText(row) {
  if (row.position === 1 || row.position === null) return '';
  if (row.lapped >= 1) return `+${row.lapped} lap${row.lapped === 1 ? '' : 's'}`;
  return row.gap === null ? '' : `+${row.gap.toFixed(3)}`;
}

const DASH_CHANNELS = ['speed', 'gear', 'engine_rpm', 'input_throttle', 'input_brake', 'input_steer'];

export class RaceInfo {
  /** `root` is the stage; `onPick(car)` follows a car. */
  constructor(root, onPick) {
    this.table = document.createElement('div');
    this.table.id = 'standings';
    this.table.setAttribute('role', 'table');
    this.table.setAttribute('aria-label', 'standings');
    this.dash = document.createElement('div');
    this.dash.id = 'dash';
    this.dash.setAttribute('aria-label', 'the followed car');
    root.append(this.table, this.dash);
    this.table.addEventListener('click', (e) => {
      const row = /** @type {HTMLElement | null} */ ((/** @type {HTMLElement} */ (e.target)).closest('[data-car]'));
      if (row) onPick(Number(row.dataset.car));
    });
    this.recording = null;
    this.lapTimes = [];
    this.resetTimes = [];
    this.lapsSeen = 0;
    this.shown = '';
  }

  /** A new recording (its track's length, for lapped cars). */
  setRecording(recording, trackLength) {
    this.recording = recording;
    this.trackLength = trackLength;
    this.lapTimes = [];
    // Filled by indexLaps once events arrive; a live race may have none.
    this.resetTimes = [];
    this.bestLaps = [];
    this.lastLaps = [];
    this.lapsSeen = 0;
    this.shown = '';
    const hasRace = !!recording.progress;
    this.table.hidden = !hasRace;
    this.dash.hidden = recording.channels.length === 0 && !hasRace;
  }

  /** Keeps the per-car lap crossings up to date with the events held. */
  indexLaps() {
    const events = this.recording.events;
    if (events.length === this.lapsSeen) return;
    this.lapTimes = Array.from({ length: this.recording.cars }, () => []);
    this.lapEvents = Array.from({ length: this.recording.cars }, () => []);
    this.resetTimes = Array.from({ length: this.recording.cars }, () => []);
    for (const e of events) {
      if (e.kind === 'reset') this.resetTimes[e.car]?.push(e.time);
      if (e.kind !== 'lap') continue;
      this.lapTimes[e.car]?.push(e.time);
      this.lapEvents[e.car]?.push(e);
    }
    for (const times of [...this.lapTimes, ...this.resetTimes]) times.sort((a, b) => a - b);
    this.lapsSeen = events.length;
  }

  /** Shows the race at playback time `t`, following `car`. */
  show(t, car) {
    const rec = this.recording;
    if (!rec || rec.count === 0) return;
    this.indexLaps();
    const i = rec.sampleAt(t);
    const rows = rec.progress ? standingsAt(rec, i, this.lapTimes, this.trackLength) : [];
    for (const r of rows) r.reset = resetThisLap(this.resetTimes[r.car] ?? [], this.lapTimes[r.car] ?? [], rec.times[i]);
    const me = rows.find((r) => r.car === car);
    const text = [
      ...rows.map((r) => `${r.car}:${r.position}:${r.laps}:${gapText(r)}:${r.reset}`),
      car,
      formatTime(t),
      ...this.dashValues(i, car).map((v) => (Number.isFinite(v) ? v.toFixed(2) : '-')),
    ].join('|');
    // Rebuilt only when something shown changed (not every frame).
    if (text === this.shown) return;
    this.shown = text;
    this.table.replaceChildren(...rows.map((r) => this.row(r, r.car === car)));
    this.drawDash(i, car, t, me, rows.filter((r) => r.position !== null).length);
  }

  row(r, followed) {
    const div = document.createElement('div');
    div.className = followed ? 'standing followed' : 'standing';
    div.dataset.car = String(r.car);
    div.setAttribute('role', 'row');
    const cells = [
      r.position === null ? 'out' : `P${r.position}`,
      carTitle(this.recording.meta.cars[r.car], r.car),
      // A lap a reset voided is starred, as `skidpad demo`'s table stars
      // an invalid lap.
      `L${r.laps + 1}${r.reset ? '*' : ''}`,
      gapText(r),
    ];
    for (const text of cells) {
      const cell = document.createElement('span');
      cell.setAttribute('role', 'cell');
      cell.textContent = text;
      div.append(cell);
    }
    if (r.reset) {
      div.classList.add('reset');
      div.title = `car ${r.car} was reset on lap ${r.laps + 1}: the lap does not count`;
    }
    return div;
  }

  /** The dashboard's channels at sample `i`, in `DASH_CHANNELS` order
   * (NaN for one the recording lacks). */
  dashValues(i, car) {
    const rec = this.recording;
    return DASH_CHANNELS.map((name) => {
      const k = rec.channels.indexOf(name);
      return k < 0 ? NaN : rec.channel(i, car, k);
    });
  }

  drawDash(i, car, t, me, running) {
    const [speed, gear, rpm, throttle, brake, steer] = this.dashValues(i, car);
    const laps = (this.lapEvents?.[car] ?? []).filter((e) => e.time <= t);
    const last = laps.at(-1);
    const best = laps.filter((e) => e.valid).reduce((b, e) => (b === null || e.lapTime < b ? e.lapTime : b), null);
    const lines = [['race', formatTime(t)]];
    if (me) {
      lines.push(['position', me.position === null ? 'out' : `${me.position} / ${running}`]);
      lines.push(['lap', `${me.laps + 1}`]);
      lines.push(['last lap', last ? formatTime(last.lapTime) + invalidity(last) : '–']);
      lines.push(['best lap', best === null ? '–' : formatTime(best)]);
    }
    if (Number.isFinite(speed)) {
      lines.push(['speed', `${Math.round(speed * 3.6)} km/h`]);
      lines.push(['gear', gear < 0 ? 'R' : gear === 0 ? 'N' : String(gear)]);
      lines.push(['rpm', String(Math.round(rpm))]);
    }
    const children = lines.map(([label, value]) => {
      const line = document.createElement('div');
      line.dataset.field = label;
      line.textContent = `${label} ${value}`;
      return line;
    });
    if (Number.isFinite(throttle)) {
      for (const [name, value] of [['throttle', throttle], ['brake', brake]]) {
        const bar = document.createElement('div');
        bar.className = `pedal ${name}`;
        bar.dataset.field = name;
        bar.title = `${name} ${Math.round(value * 100)} %`;
        bar.style.setProperty('--level', String(Math.min(Math.max(value, 0), 1)));
        children.push(bar);
      }
      // Steer: the input from full left (−1) to full right (+1), from the
      // middle of the bar.
      const bar = document.createElement('div');
      bar.className = 'steer';
      bar.dataset.field = 'steer';
      bar.title = `steer ${steer.toFixed(2)}`;
      bar.style.setProperty('--from', `${50 + Math.min(steer, 0) * 50}%`);
      bar.style.setProperty('--to', `${50 + Math.max(steer, 0) * 50}%`);
      children.push(bar);
    }
    this.dash.replaceChildren(...children);
  }
}
