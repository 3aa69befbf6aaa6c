// The recording's events as a list over the 3D view (laps, contacts,
// desyncs, removals, in time order), all of them or the followed car's
// only: a click on one plays from two seconds before it and follows the
// car it names. The timeline's markers say the same on hover.

import { describeEvent, formatTime } from './timeline.mjs';

/** Seconds of run-up a click on an event plays before it. */
const RUN_UP = 2;

/** Whether event `e` names car `car`. */
export function namesCar(e, car) {
  return e.car === car || (Array.isArray(e.cars) && e.cars.includes(car));
}

export class EventList {
  /** `root` is the stage; `seek(t)` moves playback, `pick(car)` follows a
   * car. */
  constructor(root, seek, pick) {
    this.box = document.createElement('details');
    this.box.id = 'events';
    this.summary = document.createElement('summary');
    const label = document.createElement('label');
    this.mine = document.createElement('input');
    this.mine.type = 'checkbox';
    label.append(this.mine, ' followed car only');
    this.list = document.createElement('ol');
    this.box.append(this.summary, label, this.list);
    this.box.hidden = true;
    root.append(this.box);
    this.mine.addEventListener('change', () => this.refresh());
    this.list.addEventListener('click', (e) => {
      const item = /** @type {HTMLElement | null} */ ((/** @type {HTMLElement} */ (e.target)).closest('li'));
      if (!item) return;
      const event = this.shownEvents[Number(item.dataset.index)];
      const car = event.car ?? event.cars?.find((c) => typeof c === 'number');
      if (car !== undefined) pick(car);
      seek(Math.max(this.recording.start, event.time - RUN_UP));
    });
    this.recording = null;
    this.car = 0;
    this.seen = -1;
    this.shownEvents = [];
  }

  setRecording(recording) {
    this.recording = recording;
    this.box.hidden = false;
    this.seen = -1;
  }

  /** Keeps the list current with the events held and the followed car. */
  show(car) {
    if (!this.recording) return;
    if (car === this.car && this.recording.events.length === this.seen) return;
    this.car = car;
    this.refresh();
  }

  refresh() {
    const events = this.recording.events;
    this.seen = events.length;
    this.shownEvents = events
      .filter((e) => !this.mine.checked || namesCar(e, this.car))
      .sort((a, b) => a.time - b.time);
    this.summary.textContent = `events (${this.shownEvents.length})`;
    this.list.replaceChildren(
      ...this.shownEvents.map((e, k) => {
        const item = document.createElement('li');
        item.dataset.index = String(k);
        item.dataset.kind = e.kind;
        item.textContent = `${formatTime(e.time)} ${describeEvent(e)}`;
        return item;
      }),
    );
  }
}
