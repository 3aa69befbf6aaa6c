// Telemetry charts: the chosen channels of the chosen car, drawn with
// uPlot, one scale per unit. Channels are offered by group (the core's
// `channelGroups`), each a list of checkboxes, and each is drawn by its
// interpolation mode (`channelInterpolations`): `lerp` as a line, `discrete`
// (gears, ids, flags, events) held until the next sample, `lerpAngle` (an
// angle that wraps at ±π) the shorter way round, so a heading passing
// ±π is not drawn as a sweep across the chart. The cursor is a line kept
// at the playback time (moved, not redrawn, every frame); clicking the
// chart seeks.

import uPlot from 'uplot';

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

/** The uPlot series options that draw a channel by its interpolation mode. */
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

export class TelemetryPanel {
  /** `root` holds `#channels` (the grouped checkboxes) and `#chart`. */
  constructor(root, onSeek) {
    this.root = root;
    this.picker = root.querySelector('#channels');
    this.chartBox = root.querySelector('#chart');
    this.cursor = document.createElement('div');
    this.cursor.className = 'chart-cursor';
    this.onSeek = onSeek;
    this.plot = null;
    this.recording = null;
    this.car = 0;
    this.picker.addEventListener('change', () => this.rebuild());
  }

  /** A new recording: fills the channel list, group by group (a group
   * holding a chosen channel starts open). */
  setRecording(recording) {
    this.recording = recording;
    const { channels, units, groups = [] } = recording.meta;
    this.root.hidden = channels.length === 0;
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

  /** The chosen channels, in channel order. */
  chosen() {
    const checked = new Set(Array.from(this.picker.querySelectorAll('input:checked'), (b) => b.value));
    return (this.recording?.meta.channels ?? []).filter((c) => checked.has(c));
  }

  setCar(car) {
    this.car = car;
    this.rebuild();
  }

  /** Redraws the chart from the recording's telemetry (after the car,
   * the channels or the data changed). */
  rebuild() {
    const rec = this.recording;
    if (!rec || rec.channels.length === 0 || rec.count === 0) return;
    const channels = this.chosen();
    const units = channels.map((c) => rec.meta.units[rec.channels.indexOf(c)]);
    const modes = channels.map((c) => rec.meta.interpolations?.[rec.channels.indexOf(c)] ?? 'lerp');
    let times = null;
    const columns = channels.map((c) => {
      const [t, v] = rec.series(this.car, c);
      times = t;
      return v;
    });
    if (!times) times = rec.series(this.car, rec.channels[0])[0];
    const scales = [...new Set(units)];
    const options = {
      width: this.chartBox.clientWidth || 600,
      height: 180,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [
        { label: 's' },
        ...scales.slice(0, 2).map((u, k) => ({ scale: u, label: u, side: k === 0 ? 3 : 1, grid: { show: k === 0 } })),
      ],
      series: [
        {},
        ...channels.map((c, k) => ({
          label: c,
          scale: units[k],
          stroke: SERIES_COLOURS[k % SERIES_COLOURS.length],
          width: 1,
          points: { show: false },
          ...seriesFor(modes[k], columns[k]),
        })),
      ],
    };
    this.plot?.destroy();
    this.plot = new uPlot(options, [times, ...columns], this.chartBox);
    this.plot.over.append(this.cursor);
    this.plot.over.addEventListener('click', (e) => {
      const rect = this.plot.over.getBoundingClientRect();
      this.onSeek(this.plot.posToVal(e.clientX - rect.left, 'x'));
    });
  }

  /** Moves the cursor line to time `t`. */
  showTime(t) {
    if (!this.plot) return;
    const left = this.plot.valToPos(t, 'x');
    this.cursor.style.transform = `translateX(${left}px)`;
  }
}
