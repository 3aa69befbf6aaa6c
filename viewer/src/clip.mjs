// Clips: mark where a clip begins and ends on the timeline ([ and ], at
// the step shown), then "clip" downloads those steps as a replay of their
// own (`.skr`), cut by the worker with the package's `clipReplay`: it
// starts from the world at its first step and verifies bit for bit
// anywhere, like the whole race; "video" records the view between them
// as WebM (video.mjs).

export class ClipControls {
  /**
   * `root` is the timeline; `on`: `step()` the step shown, `span()` the
   * recording's `[start, end]` times, `timeOf(step)` a step's time,
   * `cut(from, to)` a promise of the clip's bytes, `record(from, to)` a
   * promise of the view's video between them, `name()` the replay's file
   * name.
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
    this.videoButton = button('video', 'record the view between [ and ] as a video (.webm), played at the chosen speed');
    this.videoButton.id = 'clip-video';
    this.linkButton = button('link', 'put a link to this clip in the address bar (and the clipboard)');
    this.linkButton.id = 'clip-link';
    this.inButton.id = 'clip-in';
    this.outButton.id = 'clip-out';
    this.band = document.createElement('div');
    this.band.id = 'clip-range';
    this.band.hidden = true;
    root.querySelector('#track-bar').append(this.band);
    root.querySelector('#time').before(this.inButton, this.outButton, this.clipButton, this.videoButton, this.linkButton);
    this.linkButton.addEventListener('click', () => this.link());
    this.videoButton.addEventListener('click', () => this.video());
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
    this.videoButton.disabled = !this.ready() || this.recording;
    this.linkButton.disabled = !this.ready();
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

  /** Marks steps `from` to `to` (a deep link's `clip`). */
  setRange(from, to) {
    this.from = from;
    this.to = to;
    this.update();
  }

  /** The page's address with this clip (`clip=A-B`, opening at A): put in
   * the address bar and, where the browser allows, the clipboard. */
  link() {
    if (!this.ready()) return null;
    const url = new URL(location.href);
    url.searchParams.set('clip', `${this.from}-${this.to}`);
    url.searchParams.set('step', String(this.from));
    url.searchParams.delete('t');
    history.replaceState(null, '', url);
    navigator.clipboard?.writeText(url.href).catch(() => {});
    this.on.said?.(`link to steps ${this.from}–${this.to}: ${url.href}`);
    return url.href;
  }

  /** Records the view from [ to ] and downloads it as WebM. */
  async video() {
    if (!this.ready() || this.recording) return;
    this.recording = true;
    this.update();
    try {
      const blob = await this.on.record(this.from, this.to);
      this.save(blob, `${this.baseName()}.webm`);
    } catch {
      // The page has shown why.
    } finally {
      this.recording = false;
      this.update();
    }
  }

  baseName() {
    return `${this.on.name().replace(/\.(skr|sks|gz)$/, '')}-steps-${this.from}-${this.to}`;
  }

  /** Hands `blob` to the browser as a download named `name`. */
  save(blob, name) {
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
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
    this.save(new Blob([bytes], { type: 'application/octet-stream' }), `${this.baseName()}.skr`);
  }
}
