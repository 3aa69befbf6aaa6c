// Playback time, driven by the wall clock × speed (never one sample per
// animation frame), as the seeds' viewer contract asks. Negative speeds
// play backwards (rewind). A live source keeps time a little behind its
// newest sample unless the viewer paused or scrubbed away.

/** Speeds offered, × real time. */
export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];

/** How far behind a live race's newest sample playback runs, s: one
 * chunk arrives at a time, so this hides the wait for the next. */
export const LIVE_DELAY = 1.5;

export class Clock {
  constructor() {
    this.time = 0;
    this.speed = 1;
    this.direction = 1;
    this.paused = true;
    this.lastWall = null;
    this.start = 0;
    this.end = 0;
    this.live = false;
    this.following = false;
  }

  /** The time range that can be shown. */
  setRange(start, end) {
    this.start = start;
    this.end = end;
    if (this.following) this.time = Math.max(start, end - LIVE_DELAY);
    this.time = Math.min(Math.max(this.time, start), end);
  }

  play(direction = 1) {
    this.direction = direction;
    this.paused = false;
    this.lastWall = null;
  }

  pause() {
    this.paused = true;
    this.following = false;
  }

  setSpeed(speed) {
    this.speed = speed;
  }

  /** Jumps to `t` (clamped); a live view stops following the edge. */
  seek(t) {
    this.time = Math.min(Math.max(t, this.start), this.end);
    this.following = false;
  }

  /** Follows a live race's edge again. */
  follow() {
    this.following = true;
    this.paused = false;
    this.direction = 1;
  }

  /** Advances by the wall-clock time since the last tick (`nowMs` from
   * requestAnimationFrame) and returns the playback time. */
  tick(nowMs) {
    if (this.paused || this.lastWall === null) {
      this.lastWall = nowMs;
      return this.time;
    }
    const elapsed = (nowMs - this.lastWall) / 1000;
    this.lastWall = nowMs;
    const limit = this.following ? Math.max(this.start, this.end - LIVE_DELAY) : this.end;
    this.time = Math.min(Math.max(this.time + elapsed * this.speed * this.direction, this.start), limit);
    if (!this.live && (this.time === this.end || this.time === this.start) && !this.following) {
      // At either end a replay stops instead of pinning the play button.
      if ((this.direction > 0 && this.time === this.end) || (this.direction < 0 && this.time === this.start)) {
        this.paused = true;
      }
    }
    return this.time;
  }
}

/** Fires each event once as playback time crosses it moving forward
 * (the seeds' contract). A seek calls `reset`, and moving backwards fires
 * nothing, so scrubbing never replays events in a burst. */
export class EventCursor {
  constructor() {
    this.time = null;
  }

  /** The events of `events` crossed since the last call, if time moved
   * forward (all of them, however long the frame was). */
  crossed(events, t) {
    const previous = this.time;
    this.time = t;
    if (previous === null || t <= previous) return [];
    return events.filter((e) => e.time > previous && e.time <= t);
  }

  /** Forgets the last time: the next call only sets it. */
  reset() {
    this.time = null;
  }
}
