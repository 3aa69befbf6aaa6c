// Telemetry charts: the chosen channels of the chosen car, drawn with
// uPlot, one scale per unit. Channels are offered by group (the core's
// `channelGroups`), each a list of checkboxes, and each is drawn by its
// interpolation mode (`channelInterpolations`): `lerp` as a line, `discrete`
// (gears, ids, flags, events) held until the next sample, `lerpAngle` (an
// angle that wraps at ±π) the shorter way round, so a heading passing
// ±π is not drawn as a sweep across the chart. The x axis is the race's
// time, or one lap's distance from its line with another lap (dashed)
// overlaid at the same distances. The cursor is a line kept at the
// playback time (moved, not redrawn, every frame); clicking the chart
// seeks.

import uPlot from 'uplot';
import { atDistances, lapSamples, timeAtDistance } from './lap_overlay.mjs';
import { formatTime } from './timeline.mjs';

/** Channels shown until the user picks others. */
export const DEFAULT_CHANNELS = ['speed', 'input_throttle', 'input_brake', 'input_steer'];
const SERIES_COLOURS = ['#2e86de', '#27ae60', '#d64541', '#f39c12', '#8e44ad', '#16a085', '#e67e22', '#2c3e50'];

/**
 * The channels in groups, in the order each group first appears:
 * `[{ group, channels: [{ name, unit, index }] }]`.
 */
export function groupChannels(names, units, groups) {
  const byGroup = new Map();
  names.forEach((name, index) => {
    const group = groups[index] ?? 'other';
    if (!byGroup.has(group)) byGroup.set(group, []);
    byGroup.get(group).push({ name, unit: units[index], index });
  });
  return Array.from(byGroup, ([group, channels]) => ({ group, channels }));
}

/**
 * Indices `i` where an angle channel wraps between sample `i` and `i + 1`:
 * the shorter way round between them crosses ±π, so the straight line
 * between the two values would be the long way.
 */
export function angleWraps(values) {
  const wraps = [];
  for (let i = 0; i + 1 < values.length; i++) {
    const a = values[i];
    const b = values[i + 1];
    if (Number.isFinite(a) && Number.isFinite(b) && Math.abs(b - a) > Math.PI) wraps.push(i);
  }
  return wraps;
}

/**
 * The uPlot series options that draw a channel by its interpolation mode.
 * @param {string} mode
 * @param {ArrayLike<number | null>} values
 */
function seriesFor(mode, values) {
  if (mode === 'discrete') return { paths: uPlot.paths.stepped({ align: 1 }) };
  if (mode !== 'lerpAngle') return {};
  const wraps = angleWraps(values);
  if (wraps.length === 0) return {};
  return {
    // Leave out the segments across ±π (uPlot clips pixel ranges). Two
    // samples are often within one pixel: the clip takes a pixel either
    // side, or the antialiased sweep would still show.
    gaps: (u, _series, idx0, idx1, nullGaps) => {
      const xs = u.data[0];
      const gaps = [...nullGaps];
      for (const i of wraps) {
        if (i < idx0 || i >= idx1) continue;
        const from = Math.floor(u.valToPos(xs[i], 'x', true)) - 1;
        gaps.push([from, Math.ceil(u.valToPos(xs[i + 1], 'x', true)) + 1]);
      }
      return gaps.sort((a, b) => a[0] - b[0]);
    },
  };
}

/** The scales that get an axis: the first two, the delta's among them. */
function axisScales(scales) {
  const shown = scales.slice(0, 2);
  if (scales.includes('Δs') && !shown.includes('Δs')) shown[shown.length - 1] = 'Δs';
  return shown;
}

/** The chart's height, px: 180, less in a window under 700 px high so
 * the 3D view keeps half of it (77 px at 480). */
function chartHeight() {
  return window.innerHeight >= 700 ? 180 : Math.max(60, Math.round(window.innerHeight * 0.16));
}

export class TelemetryPanel {
  /** `root` holds `#lap-a` and `#lap-b` (the laps to chart),
   * `#channels` (the grouped checkboxes) and `#chart`. */
  constructor(root, onSeek) {
    this.root = root;
    this.lapA = root.querySelector('#lap-a');
    this.lapB = root.querySelector('#lap-b');
    this.lapsListed = '';
    /** The charted lap's samples in lap mode, else null. */
    this.lap = null;
    for (const select of [this.lapA, this.lapB]) select.addEventListener('change', () => this.rebuild());
    this.picker = root.querySelector('#channels');
    this.search = root.querySelector('#channel-search');
    this.search.addEventListener('input', () => this.filter(this.search.value));
    this.chartBox = root.querySelector('#chart');
    this.cursor = document.createElement('div');
    this.cursor.className = 'chart-cursor';
    this.onSeek = onSeek;
    this.plot = null;
    this.recording = null;
    this.car = 0;
    this.picker.addEventListener('change', () => this.rebuild());
    // The chart follows the window: narrower, and lower on a short one.
    window.addEventListener('resize', () => this.plot?.setSize({ width: this.chartBox.clientWidth || 600, height: chartHeight() }));
  }

  /** A new recording: fills the channel list, group by group (a group
   * holding a chosen channel starts open). */
  setRecording(recording) {
    this.recording = recording;
    const { channels, units, groups = [], noChannels } = recording.meta;
    // Nothing to chart: the panel says why rather than showing empty lists.
    this.root.hidden = false;
    this.root.querySelector('#chart-side').hidden = channels.length === 0;
    this.plot?.destroy();
    this.plot = null;
    this.chartBox.classList.toggle('empty', channels.length === 0);
    this.chartBox.textContent = channels.length === 0 ? noChannels ?? 'this recording has no telemetry channels to chart' : '';
    this.picker.replaceChildren(
      ...groupChannels(channels, units, groups).map(({ group, channels: members }) => {
        const details = document.createElement('details');
        details.dataset.group = group;
        const summary = document.createElement('summary');
        summary.textContent = `${group} (${members.length})`;
        details.append(summary);
        for (const { name, unit } of members) {
          const label = document.createElement('label');
          const box = document.createElement('input');
          box.type = 'checkbox';
          box.value = name;
          box.checked = DEFAULT_CHANNELS.includes(name);
          details.open ||= box.checked;
          label.append(box, ` ${name} (${unit})`);
          details.append(label);
        }
        return details;
      }),
    );
  }

  /** Shows only the channels whose name, unit or group holds `text`
   * (every one for empty text), opening the groups with a match. */
  filter(text) {
    const words = text.trim().toLowerCase();
    for (const details of this.picker.querySelectorAll('details')) {
      let shown = 0;
      for (const label of details.querySelectorAll('label')) {
        const hit = words === '' || `${label.textContent} ${details.dataset.group}`.toLowerCase().includes(words);
        label.hidden = !hit;
        shown += hit ? 1 : 0;
      }
      details.hidden = shown === 0;
      if (words !== '') details.open = shown > 0;
    }
  }

  /** The chosen channels, in channel order. */
  chosen() {
    const checked = new Set(Array.from(this.picker.querySelectorAll('input:checked'), (b) => b.value));
    return (this.recording?.meta.channels ?? []).filter((c) => checked.has(c));
  }

  setCar(car) {
    this.car = car;
    this.rebuild();
  }

  /** Car `car`'s completed laps, by number. */
  lapsOf(car) {
    const laps = new Map();
    for (const e of this.recording.laps(car)) laps.set(e.lap, e);
    return laps;
  }

  /** Lists the followed car's laps in the first lap picker and every
   * car's in the second (keeping what is picked while it still exists).
   * Values: `lap` in the first, `car:lap` in the second. */
  listLaps() {
    const rec = this.recording;
    const own = this.lapsOf(this.car);
    const count = rec.events.length;
    const key = `${this.car}:${count}`;
    if (key === this.lapsListed) return;
    this.lapsListed = key;
    const label = (e) => `lap ${e.lap} · ${formatTime(e.lapTime)}${e.valid ? '' : ' (invalid)'}`;
    const keptA = this.lapA.value;
    this.lapA.replaceChildren(new Option('whole race (time)', ''), ...[...own.values()].map((e) => new Option(label(e), String(e.lap))));
    this.lapA.value = own.has(Number(keptA)) ? keptA : '';
    const keptB = this.lapB.value;
    const groups = [];
    for (let car = 0; car < rec.cars; car++) {
      const laps = [...this.lapsOf(car).values()];
      if (laps.length === 0) continue;
      const group = document.createElement('optgroup');
      group.label = car === this.car ? `car ${car} (this car)` : `car ${car}`;
      group.append(...laps.map((e) => new Option(`car ${car} ${label(e)}`, `${car}:${e.lap}`)));
      groups.push(group);
    }
    this.lapB.replaceChildren(new Option('no other lap', ''), ...groups);
    this.lapB.value = [...this.lapB.options].some((o) => o.value === keptB) ? keptB : '';
    const length = rec.meta.track?.length ?? 0;
    this.lapA.disabled = this.lapB.disabled = own.size === 0 || !(length > 0) || !rec.progress;
  }

  /** The lap the second picker names, with its car, or undefined. */
  otherLap() {
    const [car, lap] = this.lapB.value.split(':').map(Number);
    const e = Number.isInteger(car) ? this.lapsOf(car).get(lap) : undefined;
    return e && { car, lap: e };
  }

  /** Charts the chosen channels of lap `a` against their distance from
   * its line, and those of `other` (`{ car, lap }`, if any) at the same
   * distances, dashed, with the time delta: how far behind lap `a` is at
   * each point, in s (at the line, the two laps' difference). Returns
   * uPlot's data and series. */
  lapData(channels, modes, units, a, other) {
    const rec = this.recording;
    const length = rec.meta.track.length;
    const lapA = lapSamples(rec, this.car, a, length);
    const lapB = other ? lapSamples(rec, other.car, other.lap, length) : null;
    this.lap = lapA;
    /** @type {ArrayLike<number | null>[]} */
    const data = [Float64Array.from(lapA.x)];
    const series = [];
    const name = other && (other.car === this.car ? `L${other.lap.lap}` : `car ${other.car} L${other.lap.lap}`);
    channels.forEach((c, k) => {
      const index = rec.channels.indexOf(c);
      const colour = SERIES_COLOURS[k % SERIES_COLOURS.length];
      const values = lapA.samples.map((i) => rec.channel(i, this.car, index));
      data.push(values);
      series.push({ label: `${c} L${a.lap}`, scale: units[k], stroke: colour, ...seriesFor(modes[k], values) });
      if (lapB) {
        const values = atDistances(lapB.x, lapB.samples.map((i) => rec.channel(i, other.car, index)), lapA.x, modes[k]);
        data.push(values);
        series.push({ label: `${c} ${name}`, scale: units[k], stroke: colour, dash: [5, 4], ...seriesFor(modes[k], values) });
      }
    });
    if (lapB) {
      const startA = a.time - a.lapTime;
      const startB = other.lap.time - other.lap.lapTime;
      // Lap B's crossing of the line ends its times (its last sample is
      // up to a step before it).
      const ends = lapB.x.length === 0 || lapB.x[lapB.x.length - 1] < length;
      const timesB = atDistances(
        ends ? [...lapB.x, length] : lapB.x,
        (ends ? [...lapB.times, other.lap.time] : lapB.times).map((t) => t - startB),
        lapA.x,
      );
      data.push(lapA.times.map((t, k) => (timesB[k] === null ? null : t - startA - timesB[k])));
      series.push({ label: `delta to ${name}`, scale: 'Δs', stroke: '#000', width: 1.5 });
    }
    return { data, series };
  }

  /** Redraws the chart from the recording's telemetry (after the car,
   * the channels or the data changed). */
  rebuild() {
    const rec = this.recording;
    if (!rec || rec.channels.length === 0 || rec.count === 0) return;
    const channels = this.chosen();
    const units = channels.map((c) => rec.meta.units[rec.channels.indexOf(c)]);
    const modes = channels.map((c) => rec.meta.interpolations?.[rec.channels.indexOf(c)] ?? 'lerp');
    this.listLaps();
    const a = this.lapA.disabled ? undefined : this.lapsOf(this.car).get(Number(this.lapA.value));
    let data;
    let series;
    if (a) {
      ({ data, series } = this.lapData(channels, modes, units, a, this.otherLap()));
    } else {
      this.lap = null;
      let times = null;
      const columns = channels.map((c) => {
        const [t, v] = rec.series(this.car, c);
        times = t;
        return v;
      });
      if (!times) times = rec.series(this.car, rec.channels[0])[0];
      data = [times, ...columns];
      series = channels.map((c, k) => ({
        label: c,
        scale: units[k],
        stroke: SERIES_COLOURS[k % SERIES_COLOURS.length],
        ...seriesFor(modes[k], columns[k]),
      }));
    }
    const scales = [...new Set(series.map((s) => s.scale))];
    const options = {
      width: this.chartBox.clientWidth || 600,
      height: chartHeight(),
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [
        { label: a ? `m from the line (lap ${a.lap})` : 's' },
        ...axisScales(scales).map((u, k) => ({ scale: u, label: u, side: k === 0 ? 3 : 1, grid: { show: k === 0 } })),
      ],
      series: [{}, ...series.map((s) => ({ width: 1, points: { show: false }, ...s }))],
    };
    this.plot?.destroy();
    this.plot = new uPlot(options, data, this.chartBox);
    this.plot.over.append(this.cursor);
    this.plot.over.addEventListener('click', (e) => {
      const rect = this.plot.over.getBoundingClientRect();
      const x = this.plot.posToVal(e.clientX - rect.left, 'x');
      const t = this.lap ? timeAtDistance(this.lap, x) : x;
      if (t !== null) this.onSeek(t);
    });
  }

  /** Moves the cursor line to time `t` (on a lap's chart: to where the
   * car was then, hidden outside the lap). */
  showTime(t) {
    if (!this.plot) return;
    const x = this.lap ? atDistances(this.lap.times, this.lap.x, [t])[0] : t;
    this.cursor.hidden = x === null;
    if (x === null) return;
    const left = this.plot.valToPos(x, 'x');
    this.cursor.style.transform = `translateX(${left}px)`;
  }
}
