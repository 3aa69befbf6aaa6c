// The timeline bar (G70 guide §11, §12): play/pause, rewind, frame step,
// speed, a scrubber over the whole recording with lap, desync and contact
// markers, and the time read-out. It only reports what the user did; the
// page owns the clock.

import { SPEEDS } from './clock.mjs';
import { invalidity } from './laps.mjs';

const MARKER_COLOURS = { lap: '#f5f5f5', desync: '#ff3b30', contact: '#ffcc00', overtake: '#2e86de', reset: '#34c759', slide: '#af52de' };

function formatTime(t) {
  const m = Math.floor(t / 60);
  const s = t - m * 60;
  return `${m}:${s.toFixed(3).padStart(6, '0')}`;
}

export class Timeline {
  /** `root` holds the bar's elements (see index.html); `on` the handlers:
   * play, pause, rewind, step(n), speed(x), seek(t), live(). */
  constructor(root, on) {
    this.root = root;
    this.scrub = root.querySelector('#scrub');
    this.markers = root.querySelector('#markers');
    this.label = root.querySelector('#time');
    this.playButton = root.querySelector('#play');
    this.liveButton = root.querySelector('#live');
    this.speedSelect = root.querySelector('#speed');
    for (const s of SPEEDS) {
      const option = document.createElement('option');
      option.value = String(s);
      option.textContent = `${s}×`;
      if (s === 1) option.selected = true;
      this.speedSelect.append(option);
    }
    this.start = 0;
    this.end = 0;
    this.scrubbing = false;
    this.playButton.addEventListener('click', () => on.toggle());
    root.querySelector('#rewind').addEventListener('click', () => on.rewind());
    root.querySelector('#back').addEventListener('click', () => on.step(-1));
    root.querySelector('#forward').addEventListener('click', () => on.step(1));
    this.liveButton.addEventListener('click', () => on.live());
    this.speedSelect.addEventListener('change', () => on.speed(Number(this.speedSelect.value)));
    this.scrub.addEventListener('input', () => {
      this.scrubbing = true;
      on.seek(Number(this.scrub.value));
    });
    this.scrub.addEventListener('change', () => {
      this.scrubbing = false;
    });
    this.markers.addEventListener('click', (e) => {
      const marker = e.target.closest('[data-time]');
      if (marker) on.seek(Number(marker.dataset.time));
    });
  }

  setSpeed(speed) {
    this.speedSelect.value = String(speed);
  }

  setLive(live) {
    this.liveButton.hidden = !live;
  }

  setRange(start, end) {
    if (start === this.start && end === this.end) return;
    this.start = start;
    this.end = end;
    this.scrub.min = String(start);
    this.scrub.max = String(end);
    this.scrub.step = 'any';
  }

  /** Redraws the markers for `events` (sorted or not). */
  setMarkers(events) {
    const span = this.end - this.start || 1;
    this.markers.replaceChildren(
      ...events.map((e) => {
        const mark = document.createElement('span');
        mark.className = `marker ${e.kind}`;
        mark.style.left = `${((e.time - this.start) / span) * 100}%`;
        mark.style.background = MARKER_COLOURS[e.kind] ?? '#ccc';
        mark.dataset.time = String(e.time);
        mark.dataset.kind = e.kind;
        mark.title = `${describeEvent(e)} at ${formatTime(e.time)}`;
        return mark;
      }),
    );
  }

  /** Shows playback time `t`, sample/step `step` and the play state. */
  show(t, step, playing) {
    if (!this.scrubbing) this.scrub.value = String(t);
    this.label.textContent = `${formatTime(t)} / ${formatTime(this.end)} · step ${step}`;
    this.playButton.textContent = playing ? '❚❚' : '▶';
  }
}

/** What an event of the recording says, in words (without its time). */
export function describeEvent(e) {
  if (e.kind === 'lap') {
    return `car ${e.car}: lap ${e.lap} completed in ${e.lapTime.toFixed(3)} s${invalidity(e)}${e.record ? ', the fastest yet' : ''}`;
  }
  if (e.kind === 'overtake') return `car ${e.cars[0]} passes car ${e.cars[1]}`;
  if (e.kind === 'slide') return `car ${e.cars[0]} slides, ${Math.round((e.angle * 180) / Math.PI)}° of body slip`;
  if (e.kind === 'reset') return `car ${e.car} put back on the track (reset: its lap does not count)`;
  if (e.kind === 'contact') {
    const [a, b] = e.cars;
    const impulse = e.impulse === undefined ? '' : `, ${Math.round(e.impulse)} N·s`;
    return b === 'ground' ? `car ${a} hit the ground${impulse}` : `contact: cars ${a} and ${b}${impulse}`;
  }
  return `${e.kind}${e.cars?.length ? ` (cars ${e.cars.join(', ')})` : ''}`;
}

export { formatTime };
