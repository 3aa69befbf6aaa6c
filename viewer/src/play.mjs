// The play page: pick a track and a car, count down, drive with the
// keyboard or a gamepad against the best lap's ghost, then submit the
// run to the leaderboard serving this page or open it in the viewer.
//
// One code base with the viewer: the same scene (track and car drawing)
// and cameras. The physics runs in play_worker.mjs on a fixed 60 Hz step;
// this thread reads the devices, draws at the display's rate
// (interpolating between the last two physics frames), shows the HUD and
// plays force feedback (a pad's rumble, a wheel's motor over WebHID).
// The device row (device_panel.mjs) chooses the profile a pad or wheel
// is read through, calibrates new ones and sets the gear mode.
// `window.skidpadPlay` lets a test read what the page shows and replace
// the gamepad source; input still arrives only through real events and
// that source (or a step-indexed script, for the frame-rate check).

import init, * as sk from 'skidpad';
import { Scene } from './scene.mjs';
import { Cameras, CAMERA_MODES } from './cameras.mjs';
import { fitStage, showError } from './stage.mjs';
import { formatTime } from './timeline.mjs';
import { invalidity } from './laps.mjs';
import { describeCar, trackGeometry } from './scene_data.mjs';
import { wrapAngle } from './recording.mjs';
import { GamepadSource, KeyboardSource, rumble } from './devices.mjs';
import { DevicePanel } from './device_panel.mjs';
import { loadBest, saveIfBest } from './ghost_store.mjs';
import { boardsOffered, carsOf, choiceOf, trackOf, worldWith } from './run_setup.mjs';
import { forgetToken, playerToken } from './leaderboard_token.mjs';

const $ = (selector) => document.querySelector(selector);

/** The pose between two physics frames (x, y, z, yaw, pitch, roll, steer,
 * speed), angles the short way round. */
function between(a, b, t) {
  return a.map((v, i) => (i >= 3 && i <= 5 ? v + wrapAngle(b[i] - v) * t : v + (b[i] - v) * t));
}

class PlayPage {
  constructor() {
    this.canvas = $('#view');
    this.scene = new Scene(this.canvas);
    this.cameras = new Cameras(this.canvas);
    this.keyboard = new KeyboardSource();
    this.gamepads = new GamepadSource();
    this.frames = [];
    this.worker = null;
    this.replay = null;
    this.shown = { state: 'setup', laps: [], hud: null, verdict: null, frameTimes: [] };
    const q = new URLSearchParams(location.search);
    this.leaderboard = q.get('leaderboard') ?? '';
    // `?fps=N` caps drawing at N frames a second (the physics keeps its
    // own fixed rate whatever the page draws).
    this.frameGapMs = q.get('fps') ? 1000 / Math.max(1, Number(q.get('fps'))) - 1 : 0;
    this.wheelAngles = new Map();
    this.keyboard.onChange = () => this.sendDevices(true);
    fitStage(this.canvas, this.scene, this.cameras);
    for (const mode of CAMERA_MODES) $('#camera').append(new Option(mode, mode));
    $('#camera').onchange = () => this.cameras.setMode($('#camera').value);
    $('#start').onclick = () => this.start().catch((e) => this.fail(e));
    $('#rearm').onclick = () => this.ffb.rearm();
    $('#finish').onclick = () => this.worker?.postMessage({ kind: 'finish' });
    $('#submit').onclick = () => this.submit().catch((e) => this.fail(e));
    $('#open').onclick = () => this.openInViewer();
  }

  async setup() {
    await init();
    this.ffb = new sk.ForceFeedback({ gain: 0.15 });
    this.panel = new DevicePanel({ onError: (e) => this.fail(e) });
    this.panel.refresh();
    const q = new URLSearchParams(location.search);
    if (q.get('player')) $('#player').value = q.get('player');
    // `?from=URL&step=S&seat=K`: drive on from step S of a replay (a
    // leaderboard's run, or one the viewer hands over), in its car K
    // (`car` names the preset of a fresh run).
    if (q.get('from')) {
      const response = await fetch(q.get('from'));
      if (!response.ok) throw new Error(`cannot fetch the replay to drive on from: ${response.status}`);
      this.takeOver = {
        bytes: new Uint8Array(await response.arrayBuffer()),
        step: Number(q.get('step') ?? 0),
        car: Number(q.get('seat') ?? 0),
      };
      // The replay's own track and car are driven, whatever the presets.
      for (const select of [$('#track'), $('#car')]) {
        select.append(new Option("the replay's", ''));
        select.value = '';
        select.disabled = true;
      }
      this.offerSectorStarts();
      this.sayTakeOver();
    } else {
      // The tracks and cars the leaderboard serving the page ranks.
      this.boards = await boardsOffered(sk, this.leaderboard);
      for (const b of this.boards) $('#track').append(new Option(b.track, b.key));
      if (q.get('track')) $('#track').value = q.get('track');
      this.offerCars();
      if (q.get('car')) $('#car').value = q.get('car');
      $('#track').addEventListener('change', () => {
        this.offerCars();
        this.preview();
      });
      $('#car').addEventListener('change', () => this.preview());
      this.preview();
    }
    requestAnimationFrame((t) => this.draw(t));
  }

  /** The chosen board's cars in the car select. */
  offerCars() {
    const board = this.board();
    $('#car').replaceChildren(...carsOf(board).map((c) => new Option(c.text, c.value)));
  }

  /** The board chosen in the track select. */
  board() {
    return this.boards.find((b) => b.key === $('#track').value) ?? this.boards[0];
  }

  /** The run the selects choose (`run_setup.mjs`). */
  choice() {
    return choiceOf(this.board(), $('#car').value);
  }

  /** The record's sector starts (the step before its car entered each
   * sector, as the core times it) as places to begin, beside the step
   * the link named. */
  offerSectorStarts() {
    const replay = sk.decodeReplay(this.takeOver.bytes);
    const starts = replay.track() ? sk.sectorStarts(replay, this.takeOver.car) : [];
    replay.free();
    const select = $('#start-at');
    select.append(new Option(`step ${this.takeOver.step}`, String(this.takeOver.step)));
    for (const s of starts) {
      select.append(new Option(`lap ${s.lap} · sector ${s.sector} (${formatTime(s.time)})`, String(s.step)));
    }
    select.value = String(this.takeOver.step);
    select.onchange = () => {
      this.takeOver.step = Number(select.value);
      this.sayTakeOver();
    };
    $('#start-at-label').hidden = false;
  }

  sayTakeOver() {
    $('#status').textContent = `driving on from step ${this.takeOver.step} of a replay, car ${this.takeOver.car}, beside the car as it was driven; hold Backspace to rewind`;
  }

  fail(e) {
    this.shown.error = showError(e);
  }

  /** Before "start": the chosen track drawn with the chosen car on pole,
   * where the run will begin (its pose from a world of its own). */
  preview() {
    // A run being driven keeps its picture; a finished one gives way.
    if (this.shown.state === 'countdown' || this.shown.state === 'driving') return;
    this.frames = [];
    const choice = this.choice();
    const track = trackOf(sk, choice);
    const data = trackGeometry(track);
    this.scene.setTrack(data);
    this.cameras.setTrack(data);
    const { world, car } = worldWith(sk, track, choice, sk.gridPose(track, 0));
    const shape = describeCar(JSON.parse(world.definition(car)));
    this.scene.setCars([shape]);
    this.scene.setGhosts(0, shape);
    const p = world.pose(car);
    this.previewPose = [p.x, p.y, p.z, p.yaw, p.pitch, p.roll, 0, 0];
    world.free();
    track.free();
  }

  /** Starts a run; a test's `script` (keys per physics step) drives it
   * instead of the devices and ends it after its last step. */
  async start({ script = null } = {}) {
    const choice = this.takeOver ? null : this.choice();
    const track = choice?.key ?? '';
    const car = $('#car').value;
    const best = choice ? await loadBest(track, car) : null;
    const record = choice ? await this.loadRecord(track, choice.className).catch(() => null) : null;
    // The faster of the board's record and the player's own best.
    const chase = record && (!best || record.time <= best.time)
      ? { ...record, source: `the record, ${record.player}` }
      : best && { ...best, source: 'your best' };
    this.worker?.terminate();
    this.worker = new Worker(new URL('./play_worker.mjs', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => this.receive(data);
    this.worker.onerror = (e) => this.fail(e.message);
    const q = new URLSearchParams(location.search);
    this.player = $('#player').value.trim();
    this.worker.postMessage({
      kind: 'start', choice, player: this.player,
      ghost: chase?.bytes ?? null,
      countdown: Number(q.get('countdown') ?? 3),
      profile: this.panel.json,
      gears: this.panel.gears,
      script,
      takeOver: this.takeOver ?? null,
    });
    this.track = track;
    this.car = car;
    this.frames = [];
    this.shown = {
      state: 'countdown', laps: [], hud: null, verdict: null, frameTimes: [],
      ghostBest: chase?.time ?? null, ghostSource: chase?.source ?? null,
    };
    $('#hud-ghost-of').textContent = chase ? ` (${chase.source})` : '';
    $('#start').disabled = true;
    $('#start-at').disabled = true;
    $('#finish').disabled = false;
    $('#result').hidden = true;
    $('#hud').hidden = false;
    this.canvas.focus();
  }

  /** Sends what the devices hold now (on every key change and frame);
   * a key change is stamped, so the worker can measure how long it
   * waited for a physics step. */
  sendDevices(changed = false) {
    if (!this.worker) return;
    const pads = (this.pads ?? []).map(({ axes, buttons }) => ({ axes, buttons }));
    const sentAt = performance.timeOrigin + performance.now();
    this.worker.postMessage({ kind: 'devices', keys: this.keyboard.keys(), pads, changed, sentAt });
  }

  receive(data) {
    switch (data.kind) {
      case 'ready':
        this.previewPose = null;
        this.scene.setTrack(data.track);
        this.cameras.setTrack(data.track);
        this.scene.setCars([data.car, ...data.others]);
        // A taken-over run races the replay's own car as its ghost.
        this.scene.setGhosts(this.shown.ghostBest === null && !data.takenOver ? 0 : 1, data.car);
        this.shown.takenOver = data.takenOver;
        if (data.takenOver) this.track = data.track.name;
        this.carDescription = data.car;
        this.handWheelLock = data.handWheelLock;
        break;
      case 'countdown':
        $('#countdown').hidden = false;
        $('#countdown').textContent = String(Math.ceil(data.remaining));
        break;
      case 'frame':
        // Frames arrive during the countdown too (the car on the grid);
        // the count goes once the first step is taken.
        if (data.step > 0) $('#countdown').hidden = true;
        if (this.shown.state === 'countdown' && data.step > 0) this.shown.state = 'driving';
        this.frames.push({ ...data, arrived: performance.now() });
        this.shown.pose = data.pose;
        this.shown.ghost = data.ghost;
        this.shown.others = data.others;
        this.shown.step = data.step;
        if (this.frames.length > 2) this.frames.shift();
        this.showHud(data.hud);
        break;
      case 'lap':
        this.shown.laps.push({ lap: data.lap, time: data.time, valid: data.valid, faults: data.faults });
        this.showLaps();
        break;
      case 'ghost':
        if (this.scene.ghosts.length === 0) this.scene.setGhosts(1, this.carDescription);
        // A taken-over run's laps are not the preset's best laps.
        if (!this.takeOver) saveIfBest(this.track, this.car, data.time, data.bytes).catch(() => {});
        break;
      case 'finished':
        this.finished(data);
        break;
      case 'stats':
        this.shown.perf = { stepMs: data.stepMs, latencyMs: data.latencyMs };
        break;
      case 'error':
        this.fail(data.message);
        break;
    }
  }

  showHud(h) {
    this.shown.hud = h;
    $('#hud-speed').textContent = (h.speed * 3.6).toFixed(0);
    $('#hud-gear').textContent = h.gear < 0 ? 'R' : h.gear === 0 ? 'N' : String(h.gear);
    $('#hud-rpm').textContent = h.rpm.toFixed(0);
    $('#hud-lap').textContent = String(h.lap);
    $('#hud-laptime').textContent = formatTime(h.lapTime);
    // A rewind behind a lap line takes that lap back: the list follows
    // the worker's count.
    if (this.shown.laps.length > h.lap - 1) {
      this.shown.laps.length = h.lap - 1;
      this.showLaps();
    }
    const last = this.shown.laps.at(-1);
    $('#hud-last').textContent = last ? `${formatTime(last.time)}${last.valid ? '' : ' (invalid)'}` : '–';
    $('#hud-best').textContent = h.best === null ? '–' : formatTime(h.best);
    // No ghost comes before a valid lap: the page says so instead of a dash.
    $('#hud-delta').textContent = h.delta !== null
      ? `${h.delta >= 0 ? '+' : ''}${h.delta.toFixed(2)} s`
      : h.ghostWaits ? 'after your first valid lap' : '–';
    // Each sector of the lap in progress against the ghost's.
    $('#hud-splits-row').hidden = h.splits.length === 0;
    $('#hud-splits').textContent = h.splits
      .map((s) => `S${s.checkpoint + 1} ${s.delta === null ? '–' : `${s.delta >= 0 ? '+' : ''}${s.delta.toFixed(2)}`}`)
      .join(' · ');
    const lost = h.lapFaults.length > 0;
    $('#hud-invalid').hidden = !lost;
    $('#hud-invalid').textContent = lost ? `lap ${h.lap} invalid: ${h.lapFaults.join('; ')}` : '';
    $('#hud-rewound').hidden = !h.rewinds;
    $('#hud-rewinds').textContent = String(h.rewinds ?? 0);
    // The bar shows the pull as a share of 20 N·m, right of centre for a
    // pull to the right.
    const share = Math.max(-1, Math.min(1, h.torque / 20));
    const bar = $('#hud-torque');
    bar.style.width = `${Math.abs(share) * 50}%`;
    bar.style.left = share >= 0 ? '50%' : `${50 - Math.abs(share) * 50}%`;
  }

  /** How fast the fastest wheel turns, rad/s: each wheel's steer
   * reading through the chosen profile, times half the hand wheel's
   * lock, differenced frame to frame. Pads in the standard mapping are
   * gamepads, whose sticks snap back by design and have no motor to run
   * away, so only other devices (wheels) count. */
  wheelSpeed(now) {
    let fastest = 0;
    const halfLock = (this.handWheelLock ?? (450 * Math.PI) / 180) / 2;
    for (const [index, { axes, buttons, pad }] of (this.pads ?? []).entries()) {
      if (pad?.mapping === 'standard') continue;
      const angle = this.panel.profile.controls(axes, buttons).steer * halfLock;
      const before = this.wheelAngles.get(index);
      if (before && now > before.at) fastest = Math.max(fastest, Math.abs(angle - before.angle) / (now - before.at));
      this.wheelAngles.set(index, { angle, at: now });
    }
    return fastest;
  }

  /** Force feedback from the torque the driver holds, run every display
   * frame with the time the last physics frame arrived, so the stage
   * itself silences the output when the page is hidden or the physics
   * stops (a stalled worker, a finished run), and latches it off when a
   * wheel runs away until the player rearms it. */
  feedback() {
    const now = performance.now() / 1000;
    const wheelSpeed = this.wheelSpeed(now);
    const last = this.frames.at(-1);
    if (!last) return;
    const { output, silenced } = this.ffb.update({
      now,
      lastUpdate: last.arrived / 1000,
      torque: last.hud.torque,
      wheelSpeed,
      visible: !document.hidden,
    });
    this.shown.feedback = output;
    this.shown.silenced = silenced;
    if (this.pads?.length) rumble(this.pads, output);
    this.panel.wheel.play(output);
    const sink = this.panel.wheelName ?? (this.pads?.length ? 'rumble' : null);
    // A keyboard has nothing to push back: the page says nothing of it.
    $('#ffb').hidden = sink === null;
    $('#ffb').textContent = silenced === 'runaway'
      ? 'force feedback latched off: the wheel spun faster than 10 rad/s; hold it and press rearm'
      : `force feedback (${sink}): ${silenced ?? 'on'}`;
    $('#rearm').hidden = silenced !== 'runaway';
  }

  draw(time) {
    requestAnimationFrame((t) => this.draw(t));
    if (this.lastDraw !== undefined && time - this.lastDraw < this.frameGapMs) return;
    this.pads = this.gamepads.read();
    this.sendDevices();
    this.panel?.frame(this.pads);
    this.feedback();
    if (this.frames.length === 0) {
      if (this.previewPose) this.drawStill(this.previewPose);
      return;
    }
    const [a, b] = this.frames.length === 2 ? this.frames : [this.frames[0], this.frames[0]];
    // One physics frame behind: between the last two, by the time since
    // the newer one arrived.
    const span = Math.max(1, b.arrived - a.arrived);
    const t = Math.min(1, (performance.now() - b.arrived) / span);
    const pose = between(a.pose, b.pose, t);
    if (this.scene.ghosts.length && b.ghost) this.scene.place(this.scene.ghosts[0], b.ghost);
    b.others.forEach((other, k) => this.scene.place(this.scene.cars[k + 1], between(a.others[k] ?? other, other, t)));
    this.drawStill(pose);
    const times = this.shown.frameTimes;
    if (this.lastDraw !== undefined) times.push(time - this.lastDraw);
    if (times.length > 600) times.shift();
    this.lastDraw = time;
  }

  /** The laps so far, each invalid one with why, under the HUD. */
  showLaps() {
    const list = $('#laps');
    list.replaceChildren(...this.shown.laps.map((l) => {
      const item = document.createElement('li');
      item.textContent = `lap ${l.lap}: ${formatTime(l.time)}${invalidity(l)}`;
      item.classList.toggle('invalid', !l.valid);
      return item;
    }));
    list.hidden = this.shown.laps.length === 0;
  }

  /** Draws the player's car at `pose`, seen from the chosen camera. */
  drawStill(pose) {
    this.scene.place(this.scene.cars[0], pose);
    this.scene.cars[0].group.visible = this.cameras.mode !== 'cockpit';
    this.cameras.update(pose);
    this.scene.render(this.cameras.camera);
  }

  finished({ replay, laps }) {
    this.replay = replay;
    this.shown.state = 'finished';
    this.shown.replayBytes = replay.length;
    this.panel.wheel.stop();
    crypto.subtle.digest('SHA-256', replay).then((d) => {
      this.shown.replayDigest = [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
    });
    $('#finish').disabled = true;
    $('#start').disabled = false;
    $('#start-at').disabled = false;
    $('#result').hidden = false;
    $('#result-laps').textContent = laps.length
      ? laps.map((l) => `lap ${l.lap}: ${formatTime(l.time)}${invalidity(l)}`).join(' · ')
      : 'no lap completed';
    $('#verdict').textContent = '';
  }

  /** The board's record on `track` (its key) in class `className` as a
   * ghost to chase: `{ bytes, time, player }`, or null when it has none. */
  async loadRecord(track, className) {
    const base = this.leaderboard;
    const board = await fetch(`${base}/leaderboards/${encodeURIComponent(track)}/${encodeURIComponent(className)}?limit=1`);
    if (!board.ok) return null;
    const [entry] = (await board.json()).entries ?? [];
    if (!entry) return null;
    const ghost = await fetch(`${base}/runs/${entry.run_id}/ghost`);
    if (!ghost.ok) return null;
    return { bytes: new Uint8Array(await ghost.arrayBuffer()), time: entry.lap_time, player: entry.player };
  }

  /** POSTs the replay to the leaderboard and waits for its verdict. */
  async submit() {
    const base = this.leaderboard;
    $('#verdict').textContent = 'submitting…';
    // The name the run was recorded under (its metadata's player).
    const player = this.player;
    const token = await playerToken(base, player);
    const response = await fetch(`${base}/runs`, {
      method: 'POST', body: this.replay, headers: { Authorization: `Bearer ${token}` },
    });
    const posted = await response.json();
    if (response.status === 401) forgetToken(base, player);
    if (!response.ok) throw new Error(`the leaderboard refused the run: ${posted.error}`);
    let run;
    for (let k = 0; k < 240; k++) {
      run = await (await fetch(`${base}/runs/${posted.id}`)).json();
      if (run.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    let verdict = { id: posted.id, status: run.status };
    if (run.status === 'verified') {
      const o = run.outcome;
      const board = await (await fetch(`${base}/leaderboards/${o.track}/${o.class}`)).json();
      const entry = board.entries.find((e) => e.run_id === posted.id) ?? null;
      verdict = { ...verdict, bestLap: o.best_lap, laps: o.laps, rank: entry?.rank ?? null };
      // The server's own words for each lap it did not count.
      const reasons = o.laps.filter((l) => !l.valid).map((l) => `lap ${l.lap}: ${l.invalid_reasons.join('; ') || 'invalid'}`);
      $('#verdict').textContent = o.best_lap === null
        ? `verified: no valid lap to rank${reasons.length ? ` (${reasons.join(' · ')})` : ''}`
        : `verified: best lap ${formatTime(o.best_lap)}${entry ? `, rank ${entry.rank}` : ' (not your best)'}`;
    } else {
      verdict.reason = run.outcome?.reason?.message ?? run.status;
      $('#verdict').textContent = `not ranked: ${verdict.reason}`;
    }
    this.shown.verdict = verdict;
  }

  /** Opens the run in the viewer: from the leaderboard by its id once
   * submitted, else from this page's memory; named for what it is. */
  openInViewer() {
    const id = this.shown.verdict?.id;
    const src = id ? `${this.leaderboard}/runs/${id}/replay` : URL.createObjectURL(new Blob([this.replay]));
    const name = `${this.player || 'anonymous'} on ${this.track} (${this.car || "the replay's car"})${id ? `, run ${id.slice(0, 8)}` : ''}`;
    window.open(`/view?src=${encodeURIComponent(src)}&name=${encodeURIComponent(name)}`, '_blank');
  }
}

const page = new PlayPage();
/** @type {any} */ (window).skidpadPlay = {
  /** What the page shows: state, HUD values, laps, verdict, frame times. */
  shown: () => page.shown,
  /** The little a driver looks at, cheaply: the car's pose, its steer
   * input, the physics step and the laps done. */
  glance: () => ({
    pose: page.shown.pose, steer: page.shown.hud?.steer, step: page.shown.step,
    laps: page.shown.laps.length, feedback: page.shown.feedback ?? 0,
  }),
  /** Cars the scene draws (the player's first, then a taken-over
   * race's others). */
  drawnCars: () => page.scene.cars.length,
  /** Asks the worker for its step costs and input latencies (they
   * arrive in `shown().perf`). */
  requestStats: () => page.worker?.postMessage({ kind: 'stats' }),
  /** Starts a run driven by `script` (keys per physics step) instead of
   * the devices; it ends after the script's last step. */
  startScripted: (script) => page.start({ script }).catch((e) => page.fail(e)),
  /** The finished run's replay file (bytes), or null before the finish. */
  replay: () => page.replay,
  /** Replaces the gamepad source (a function returning Gamepad-like pads). */
  setGamepadSource: (source) => {
    page.gamepads.source = source;
  },
};
page.setup().catch((e) => page.fail(e));
