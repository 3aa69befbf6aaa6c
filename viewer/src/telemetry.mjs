// Telemetry charts: the chosen channels of the chosen car, drawn with
// uPlot, one scale per unit. The cursor is a line kept at the playback
// time (moved, not redrawn, every frame); clicking the chart seeks.

import uPlot from 'uplot';

/** Channels shown until the user picks others. */
export const DEFAULT_CHANNELS = ['speed', 'input_throttle', 'input_brake', 'input_steer'];
const SERIES_COLOURS = ['#2e86de', '#27ae60', '#d64541', '#f39c12', '#8e44ad', '#16a085', '#e67e22', '#2c3e50'];

export class TelemetryPanel {
  /** `root` holds `#channels` (a multiple select) and `#chart`. */
  constructor(root, onSeek) {
    this.root = root;
    this.select = root.querySelector('#channels');
    this.chartBox = root.querySelector('#chart');
    this.cursor = document.createElement('div');
    this.cursor.className = 'chart-cursor';
    this.onSeek = onSeek;
    this.plot = null;
    this.recording = null;
    this.car = 0;
    this.select.addEventListener('change', () => this.rebuild());
  }

  /** A new recording: fills the channel list. */
  setRecording(recording) {
    this.recording = recording;
    const { channels, units } = recording.meta;
    this.root.hidden = channels.length === 0;
    this.select.replaceChildren(
      ...channels.map((name, k) => {
        const option = document.createElement('option');
        option.value = name;
        option.textContent = `${name} (${units[k]})`;
        option.selected = DEFAULT_CHANNELS.includes(name);
        return option;
      }),
    );
  }

  chosen() {
    return Array.from(this.select.selectedOptions, (o) => o.value);
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
