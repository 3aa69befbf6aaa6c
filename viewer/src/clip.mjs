// Clips: mark where a clip begins and ends on the timeline ([ and ], at
// the step shown), then "clip" downloads those steps as a replay of their
// own (`.skr`), cut by the worker with the package's `clipReplay`: it
// starts from the world at its first step and verifies bit for bit
// anywhere, like the whole race.

export class ClipControls {
  /**
   * `root` is the timeline; `on`: `step()` the step shown, `span()` the
   * recording's `[start, end]` times, `timeOf(step)` a step's time,
   * `cut(from, to)` a promise of the clip's bytes, `name()` the replay's
   * file name.
   */
  constructor(root, on) {
    this.on = on;
    this.from = null;
    this.to = null;
    const button = (label, title) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.title = title;
      return b;
    };
    this.inButton = button('[', 'the clip begins at this step');
    this.outButton = button(']', 'the clip ends at this step');
    this.clipButton = button('clip', 'download the steps between [ and ] as a replay (.skr)');
    this.clipButton.id = 'clip';
    this.inButton.id = 'clip-in';
    this.outButton.id = 'clip-out';
    this.band = document.createElement('div');
    this.band.id = 'clip-range';
    this.band.hidden = true;
    root.querySelector('#track-bar').append(this.band);
    root.querySelector('#time').before(this.inButton, this.outButton, this.clipButton);
    this.inButton.addEventListener('click', () => this.mark('from'));
    this.outButton.addEventListener('click', () => this.mark('to'));
    this.clipButton.addEventListener('click', () => this.download());
    this.update();
  }

  /** A new recording: no clip marked; clips only for a replay the
   * package itself plays (`clippable`). */
  reset(clippable) {
    this.from = null;
    this.to = null;
    this.clippable = clippable;
    this.update();
  }

  mark(end) {
    this[end] = this.on.step();
    if (this.from !== null && this.to !== null && this.from > this.to) [this.from, this.to] = [this.to, this.from];
    this.update();
  }

  /** Whether a clip of at least one step is marked. */
  ready() {
    return this.clippable && this.from !== null && this.to !== null && this.to > this.from;
  }

  update() {
    this.inButton.disabled = this.outButton.disabled = !this.clippable;
    this.clipButton.disabled = !this.ready();
    const [start, end] = this.on.span();
    const marked = this.from ?? this.to;
    this.band.hidden = !this.clippable || marked === null || !(end > start);
    if (this.band.hidden) return;
    const left = this.on.timeOf(this.from ?? marked);
    const right = this.on.timeOf(this.to ?? marked);
    this.band.style.left = `${((left - start) / (end - start)) * 100}%`;
    this.band.style.width = `${Math.max(((right - left) / (end - start)) * 100, 0.2)}%`;
    this.clipButton.title = this.ready()
      ? `download steps ${this.from} to ${this.to} as a replay (.skr)`
      : 'mark where the clip begins ([) and ends (])';
  }

  async download() {
    if (!this.ready()) return;
    let bytes;
    try {
      bytes = await this.on.cut(this.from, this.to);
    } catch {
      // The page has shown why.
      return;
    }
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${this.on.name().replace(/\.(skr|sks|gz)$/, '')}-steps-${this.from}-${this.to}.skr`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
