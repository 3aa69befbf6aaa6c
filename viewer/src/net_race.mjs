// The online race page: join a race on a skidpad-netplay server, drive
// with the keyboard or a gamepad, see the other players interpolated.
//
//   /race?server=ws://HOST:PORT/race&token=SEAT_TOKEN&name=NAME[&pace=P][&predict=all]
//
// With `predict=all` the page signs in for the server's confirmations and
// runs the whole race itself (the npm package's RaceClient): every car is
// predicted from the inputs the server confirms and drawn from that
// prediction, and every frame's hashes check it (netplay/FORMAT.md,
// "Predicting every car"); a lost frame or a desync asks for a first shot
// again. It is not the default yet: it predicts on the thread it draws on,
// and under load (a CI run: an imported circuit, pace 2, a second car) the
// page fell so far behind that the server kicked it for its latency.
//
// With a spectator token the page watches instead: no car of its own,
// every car interpolated, the camera on the player the server says it
// follows (panel key `f`), N and P switching to the next and previous
// player (seed 001's `nextPlayer` / `prevPlayer` commands).
//
// The page owns the WebSocket and the message channels (netplay/FORMAT.md);
// by default the npm package's NetClient predicts this player's car with
// the core and checks every state the server sends bit for bit, and
// NetInterpolator draws the others `delay` behind the server (a spectator
// draws every car so). Input goes through the same
// input layer as the play page (keyboard ramps, the standard gamepad
// profile, the mixer that follows the device touched last, automatic
// gears), one prediction tick at a time at the server's rate; T (the
// play page's reset key too) sends the `reset` command. After the finish the page fetches the
// driver's leaderboard entry and offers it as a download
// (race_entry.mjs). `window.skidpadRace`
// lets a test read what the page shows; input arrives only through real
// key events.

import init, * as sk from 'skidpad';
import { Scene } from './scene.mjs';
import { Cameras, CAMERA_MODES } from './cameras.mjs';
import { fitStage, showError } from './stage.mjs';
import { GamepadSource, KEY_MAP, KeyboardSource } from './devices.mjs';
import { chosenProfile } from './profiles.mjs';
import { describeCar, trackGeometry } from './scene_data.mjs';
import { MissLog } from './net_misses.mjs';
import { entryFileName, fetchEntry } from './race_entry.mjs';

const $ = (selector) => document.querySelector(selector);

/** Channel bytes (netplay/src/messages.rs). */
/** The message channels by name (`sk.netChannels()`, the netplay crate's
 * numbers), set once the package is initialised. */
let CH;
/** Ticks the prediction starts ahead of its first shot; the client's lead
 * control then keeps its inputs arriving just before their ticks. */
const START_LEAD = 12;
/** The lead control's margin, ticks: this page predicts on the thread it
 * draws on, so its ticks come less regularly than a native client's. */
const LEAD_SAFETY = 6;
/** Tries to reconnect after a dropped link, a second apart: within the
 * server's default grace of 30 s. */
const RECONNECT_TRIES = 25;
const RECONNECT_MS = 1000;

const text = (bytes) => new TextDecoder().decode(bytes);
const json = (bytes) => JSON.parse(text(bytes));
const message = (channel, payload) => {
  const out = new Uint8Array(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
};
const poseArray = (p) => [p.x, p.y, p.z, p.yaw, p.pitch, p.roll, p.steer, p.speed];

class RacePage {
  constructor() {
    const q = new URLSearchParams(location.search);
    this.server = q.get('server') ?? `ws://${location.hostname}:8789/race`;
    this.token = q.get('token') ?? '';
    this.name = q.get('name') ?? 'player';
    this.pace = Number(q.get('pace') ?? 1);
    /** Predict every car (RaceClient, `predict=all`), or only this
     * player's (NetClient, the default). */
    this.predictAll = q.get('predict') === 'all';
    this.canvas = $('#view');
    this.scene = new Scene(this.canvas);
    this.cameras = new Cameras(this.canvas);
    this.keyboard = new KeyboardSource();
    this.gamepads = new GamepadSource();
    this.client = null;
    /** @type {sk.RaceClient | null} a client that desynced, until the
     * first shot that names the differing fields */
    this.wentWrong = null;
    this.remote = null;
    /** @type {sk.RaceMap | null} the race's track and car, from the map */
    this.race = null;
    /** @type {MissLog | null} the prediction's misses, once seated */
    this.misses = null;
    this.standings = new Map();
    // The race's start tick (0: on from the first join, null: waiting for
    // players), from the countdown game inform.
    this.startTick = 0;
    this.shown = { state: 'connecting', seat: null, laps: 0, panel: {}, ping: null, informs: [], remoteDrawn: [], error: null, chat: [], following: null, entry: null, desyncs: [], resyncs: 0 };
    /** True once the server seated this page as a spectator. */
    this.spectating = false;
    /** The seq of the last key command sent. */
    this.commandSeq = 0;
    /** Tries to reconnect since the link dropped; times it came back. */
    this.reconnectTries = 0;
    this.shown.reconnected = 0;
    $('#chat').onsubmit = (e) => this.sendChat(e);
    fitStage(this.canvas, this.scene, this.cameras);
    for (const mode of CAMERA_MODES) $('#camera').append(new Option(mode, mode));
    $('#camera').onchange = () => this.cameras.setMode($('#camera').value);
  }

  async setup() {
    await init();
    CH = sk.netChannels();
    this.keys = new sk.KeyboardControls();
    // The device profile chosen (or calibrated) on the play page.
    this.pad = sk.DeviceProfile.fromJson(chosenProfile().json);
    this.mixer = new sk.InputMixer();
    this.connect();
    requestAnimationFrame((t) => this.draw(t));
  }

  /** Opens the race's WebSocket (again, after a dropped link). */
  connect() {
    this.socket = new WebSocket(this.server);
    this.socket.binaryType = 'arraybuffer';
    this.socket.onmessage = ({ data }) => {
      try {
        this.receive(new Uint8Array(data));
      } catch (e) {
        this.fail(e);
      }
    };
    this.socket.onclose = (e) => this.closed(e);
  }

  /** The socket closed. A kick or a clean end is said and stays; a
   * dropped link (no close frame, 1006) while racing is tried again every
   * second within the server's grace, while the AI drives the car
   * (netplay/FORMAT.md, "a dropped link"): the seat's token takes the same
   * car back. */
  closed(e) {
    clearInterval(this.timer);
    const racing = this.shown.state === 'racing' || this.shown.state === 'reconnecting';
    if (e.code === 1006 && racing && this.reconnectTries < RECONNECT_TRIES) {
      this.reconnectTries += 1;
      this.shown.state = 'reconnecting';
      $('#status').textContent = `the link dropped: reconnecting (try ${this.reconnectTries}); the AI drives your car meanwhile`;
      setTimeout(() => this.connect(), RECONNECT_MS);
      return;
    }
    this.shown.state = 'closed';
    this.shown.closed = e.code;
    $('#status').textContent = `disconnected (${e.code}${e.reason ? `: ${e.reason}` : ''})`;
  }

  fail(e) {
    this.shown.error = showError(e);
  }

  send(bytes) {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(bytes);
  }

  receive(bytes) {
    const channel = bytes[0];
    const payload = bytes.subarray(1);
    switch (channel) {
      case CH.config: {
        this.config = json(payload);
        this.schema = sk.NetSchema.fromJson(JSON.stringify(this.config.schema));
        this.remote = new sk.NetInterpolator(this.schema, this.config.interpolationDelayMs, this.config.maxFrameAgeMs);
        this.tickMs = 1000 / this.config.tickHz / this.pace;
        break;
      }
      case CH.auth:
        this.send(message(CH.auth, new TextEncoder().encode(JSON.stringify({
          token: this.token, name: this.name, ...(this.predictAll ? { predict: 'all' } : {}),
        }))));
        break;
      case CH.authResult: {
        const result = json(payload);
        if (result !== null) this.fail(`the server refused: ${result.error}`);
        break;
      }
      case CH.map:
        this.join(text(payload));
        break;
      case CH.firstShot:
        this.firstShot(payload);
        break;
      case CH.shot:
        this.shot(payload);
        break;
      case CH.ping:
        this.send(message(CH.pong, payload));
        break;
      case CH.panel:
        for (const entry of json(payload)) {
          const at = entry.indexOf(':');
          this.shown.panel[entry.slice(0, at)] = entry.slice(at + 1);
        }
        break;
      case CH.stat:
        this.stat(json(payload));
        break;
      case CH.gameInform:
        this.gameInform(json(payload));
        break;
      case CH.chat:
        this.chatLine(json(payload));
        break;
      case CH.techInform:
        this.fail(`the server: ${text(payload)}`);
        break;
      default:
        break;
    }
  }

  /** A chat line from the server, `[text, name, 0]`: shown as the last
   * of at most eight lines (as text, never as markup). */
  chatLine([text, name]) {
    this.shown.chat.push({ name, text });
    const line = document.createElement('div');
    line.textContent = `${name}: ${text}`;
    const lines = $('#chat-lines');
    lines.append(line);
    while (lines.children.length > 8) lines.firstElementChild.remove();
  }

  /** Sends the chat box's line (the server takes one a second, 1 to 200
   * printable characters) and gives the keys back to driving. */
  sendChat(event) {
    event.preventDefault();
    const input = $('#chat-input');
    const line = input.value.trim();
    input.value = '';
    input.blur();
    this.canvas.focus();
    if (line) this.send(message(CH.chatSend, new TextEncoder().encode(line)));
  }

  /** The map message (its JSON text): the seat, and the race's track and
   * car, built in or the race's own (read by the wasm `RaceMap`). */
  join(mapText) {
    const map = JSON.parse(mapText);
    this.map = map;
    this.race?.free();
    this.race = sk.RaceMap.parse(mapText);
    this.shown.seat = map.seat;
    this.spectating = map.seat === null;
    if (!this.spectating) this.misses = new MissLog(map.seat);
    const track = this.race.trackView();
    const data = trackGeometry(track, map.track);
    this.scene.setTrack(data);
    this.cameras.setTrack(data);
    const car = JSON.parse(this.race.carDefinition());
    this.carShape = describeCar(car);
    this.topGear = car.gearbox.ratios.length;
    this.gears = new sk.GearSelector('automatic', this.topGear);
    $('#hud-laps').textContent = String(map.laps);
    $('#hud').hidden = false;
    $('#chat').hidden = false;
    this.seatStatus = `seat ${map.seat} on ${map.track}: arrows or WASD drive, T puts the car back on the track`;
    $('#status').textContent = this.spectating
      ? `watching on ${map.track}: N and P switch the player followed`
      : this.seatStatus;
    // Once: a page that reconnects is welcomed again.
    if (this.keysBound) {
      this.canvas.focus();
      return;
    }
    this.keysBound = true;
    if (this.spectating) {
      // A spectator has no round trip of its own to show.
      $('#hud-ping').parentElement.hidden = true;
      window.addEventListener('keydown', (e) => {
        if (e.target === $('#chat-input') || e.repeat) return;
        const name = { n: 'nextPlayer', p: 'prevPlayer' }[e.key.toLowerCase()];
        if (!name) return;
        this.commandSeq += 1;
        this.send(message(CH.shot, new TextEncoder().encode(`${this.commandSeq}:down:${name}`)));
      });
    } else {
      // The reset key asks the server to put the car back on the track (a
      // wedged or rolled car); the lap it falls in does not count.
      window.addEventListener('keydown', (e) => {
        if (!KEY_MAP.reset.includes(e.code) || e.repeat || (e.target instanceof Element && e.target.closest('input, textarea, select'))) return;
        e.preventDefault();
        this.commandSeq += 1;
        this.send(message(CH.shot, new TextEncoder().encode(`${this.commandSeq}:down:reset`)));
      });
    }
    this.canvas.focus();
  }

  /** Seed 001's game codes: 0 waiting or counting down (with the start
   * tick, null while seats are missing), 1 on, 2 finished. The client holds
   * its car before the start as the server does. */
  gameInform(inform) {
    this.shown.informs.push(inform);
    if (this.spectating) return;
    if (inform[0] === 2) this.collectEntry();
    if (inform[0] === 1 && this.seatStatus) $('#status').textContent = this.seatStatus;
    if (inform[0] !== 0) return;
    this.startTick = inform[1].startTick;
    this.client?.setStartTick(this.startTick);
    $('#status').textContent = this.startTick === null
      ? `held on the grid: waiting for players, ${inform[1].seated} of ${inform[1].needed} seated`
      : 'held on the grid: the countdown is on';
  }

  /** After this driver's finish: fetch their entry from the race server
   * (made once every car is in; sealed when the server has a key) and
   * offer it as a download, ready to submit to a leaderboard. */
  collectEntry() {
    if (!this.config.entries || this.shown.entry) return;
    this.shown.entry = { state: 'waiting' };
    $('#entry').hidden = false;
    $('#entry').textContent = 'entry: waiting for the others to finish…';
    fetchEntry(this.server, this.token).then((entry) => {
      const link = document.createElement('a');
      link.id = 'entry-link';
      link.download = entryFileName(entry);
      link.href = URL.createObjectURL(new Blob([entry.bytes], { type: 'application/octet-stream' }));
      link.textContent = `download your entry (car ${entry.car}, ${entry.bytes.length} bytes)`;
      $('#entry').replaceChildren(link);
      this.shown.entry = { state: 'ready', car: entry.car, driver: entry.driver, bytes: entry.bytes.length, file: link.download };
    }, (e) => {
      $('#entry').textContent = `entry: ${e.message}`;
      this.shown.entry = { state: 'refused', reason: e.message };
    });
  }

  /** Whether the car is held on the grid: the start tick is not known
   * yet, or the prediction has not reached it. */
  held() {
    return this.startTick === null || (this.client !== null && this.client.tick < this.startTick);
  }

  firstShot(payload) {
    if (this.spectating) {
      this.remote.firstShot(payload);
      this.clock = { serverMs: this.schema.decodeFrame(payload).serverTimeMs, at: performance.now() };
      this.shown.state = 'watching';
      return;
    }
    if (this.shown.state === 'reconnecting') this.shown.reconnected += 1;
    this.reconnectTries = 0;
    if (this.wentWrong) {
      const cars = this.wentWrong.desyncFields(payload);
      this.shown.desyncs[this.shown.desyncs.length - 1].cars = cars;
      console.error(`a desync: ${JSON.stringify(cars)}`);
      this.wentWrong.free();
      this.wentWrong = null;
    }
    this.client?.free();
    this.client = this.predictAll
      ? sk.RaceClient.forRace(this.race, this.config.tickHz, this.config.ticksPerFrame, payload)
      : sk.NetClient.forRace(this.race, this.config.tickHz, payload);
    this.client.setLeadSafety(LEAD_SAFETY);
    this.client.setMaxInputLead(this.config.maxInputLead);
    this.client.setStartTick(this.startTick);
    this.client.advanceTo(this.client.tick + START_LEAD);
    // The car's pose from the first shot on, not only from the first
    // predicted tick (a busy machine may draw a frame in between).
    this.shown.pose = poseArray(this.client.pose());
    this.remote.firstShot(payload);
    this.clock = { serverMs: this.schema.decodeFrame(payload).serverTimeMs, at: performance.now() };
    this.started = performance.now();
    this.ticks = 0;
    this.shown.state = 'racing';
    this.timer = setInterval(() => this.tick(), 4);
  }

  shot(payload) {
    if (this.spectating) {
      if (this.clock && this.remote.push(payload)) {
        this.clock = { serverMs: this.schema.decodeFrame(payload).serverTimeMs, at: performance.now() };
      }
      return;
    }
    if (!this.client) return;
    const frame = this.schema.decodeFrame(payload);
    if (this.client instanceof sk.RaceClient) {
      if (!this.confirm(payload)) return;
    } else {
      const miss = this.client.onFrame(payload);
      this.misses?.frame(frame);
      if (miss) this.misses?.miss(miss, frame);
    }
    if (this.remote.push(payload)) {
      this.clock = { serverMs: frame.serverTimeMs, at: performance.now() };
      // The lap events: anonymous rows of {car, lap, timeMs, valid}.
      const laps = /** @type {Array<Record<string, number>>} */ (frame.blocks.lap ?? []);
      for (const row of laps) if (row.car === this.map.seat) this.shown.laps += 1;
    }
  }

  /** A frame's confirmations into the whole race; false when the frame
   * could not be taken (one was lost) or the race went wrong (a desync):
   * the page asks for a first shot and drives nothing until it comes. */
  confirm(payload) {
    let why;
    let desync = null;
    try {
      desync = /** @type {sk.RaceClient} */ (this.client).onFrame(payload);
      if (!desync) return true;
      // It must never happen; the race starts again from the server's.
      this.shown.desyncs.push(desync);
      why = `a desync at tick ${desync.tick} (seats ${desync.seats.join(', ')})`;
    } catch (e) {
      why = String(e);
    }
    console.warn(`asking for a first shot again: ${why}`);
    clearInterval(this.timer);
    // A client that desynced names the differing fields from the first
    // shot that comes (firstShot).
    if (desync) this.wentWrong = /** @type {sk.RaceClient} */ (this.client);
    else this.client.free();
    this.client = null;
    this.shown.resyncs += 1;
    this.commandSeq += 1;
    this.send(message(CH.shot, new TextEncoder().encode(`${this.commandSeq}:down:resync`)));
    return false;
  }

  /** Standings: `[rows, heads, full?]`, rows `[seat, 0, cells | null, 0]`. */
  stat([rows, , full]) {
    if (full) this.standings.clear();
    for (const [seat, , cells] of rows) {
      if (cells === null) this.standings.delete(seat);
      else this.standings.set(seat, cells);
    }
    const own = this.standings.get(this.map?.seat);
    this.shown.ping = own ? own[4] : null;
    const table = $('#standings');
    table.replaceChildren();
    for (const [name, position, laps] of [...this.standings.values()].sort((a, b) => a[1] - b[1])) {
      const row = table.insertRow();
      for (const cell of [position, name, `${laps} laps`]) row.insertCell().textContent = String(cell);
    }
  }

  /** Predicts the ticks due by the page's clock at the server's rate,
   * as many as the lead control asks for each. */
  tick() {
    const due = Math.floor((performance.now() - this.started) / this.tickMs) - this.ticks;
    for (let k = 0; k < Math.min(due, 8); k++) {
      this.ticks += 1;
      for (let n = this.client.ticksDue(); n > 0; n--) this.drive();
    }
  }

  drive() {
    const pose = this.client.pose();
    const keys = this.keyboard.keys();
    /** @type {{ controls: sk.Controls, shift: sk.ShiftButtons }[]} */
    const frames = [{
      controls: this.keys.update(keys, 1 / this.config.tickHz, pose.speed),
      shift: { up: !!keys.shiftUp, down: !!keys.shiftDown },
    }];
    for (const { axes, buttons } of this.gamepads.read()) {
      frames.push({ controls: this.pad.controls(axes, buttons), shift: this.pad.shiftButtons(buttons) });
    }
    const mixed = this.mixer.update(frames);
    this.shown.steer = mixed.controls.steer;
    const gear = this.gears.update(mixed.shift);
    const input = sk.carInputFrom(mixed.controls, gear, this.topGear);
    this.send(this.client.drive(input));
    this.shown.pose = poseArray(this.client.pose());
  }

  /** A spectator's picture: every car as the server sent it, the camera
   * on the followed player's (the first drawn while it follows no one). */
  watch(time) {
    const serverNow = this.clock.serverMs + (performance.now() - this.clock.at) * this.pace;
    const cars = this.remote.sample(serverNow).filter((e) => e.key === 'cars');
    if (this.scene.cars.length !== cars.length) this.scene.setCars(Array(cars.length).fill(this.carShape));
    const p = this.shown.panel;
    this.shown.following = p.f ? Number(p.f) : null;
    /** @type {{ pose: number[], index: number, row: Record<string, number> } | null} */
    let followed = null;
    cars.forEach((e, k) => {
      const r = e.row;
      const pose = [r.x, r.y, r.z, r.yaw, r.pitch, r.roll, r.steer, r.speed];
      this.scene.place(this.scene.cars[k], pose);
      if (!this.shown.remoteDrawn.includes(e.id)) this.shown.remoteDrawn.push(e.id);
      if (e.id === this.shown.following || followed === null) followed = { pose, index: k, row: r };
    });
    if (followed) {
      this.scene.cars.forEach((car, k) => (car.group.visible = k !== followed.index || this.cameras.mode !== 'cockpit'));
      this.cameras.update(followed.pose);
      this.scene.seeThrough(this.cameras.camera, followed.index);
      $('#hud-speed').textContent = (followed.pose[7] * 3.6).toFixed(0);
      const gear = followed.row.gear - 1;
      $('#hud-gear').textContent = gear < 0 ? 'R' : gear === 0 ? 'N' : String(gear);
    }
    this.scene.render(this.cameras.camera);
    $('#hud-pos').textContent = p.pos || '–';
    $('#hud-lap').textContent = p.lap || '–';
    $('#hud-gap').textContent = p.gap && Number(p.gap) > 0 ? `+${p.gap} s` : '–';
    const name = this.standings.get(this.shown.following)?.[0] ?? null;
    if (name !== this.shown.watching) {
      this.shown.watching = name;
      $('#status').textContent = `watching ${name ?? 'no one'} on ${this.map.track}: N and P switch the player followed`;
    }
    this.lastDraw = time;
  }

  draw(time) {
    requestAnimationFrame((t) => this.draw(t));
    if (this.spectating && this.clock) {
      this.watch(time);
      return;
    }
    if (!this.client) return;
    const serverNow = this.clock.serverMs + (performance.now() - this.clock.at) * this.pace;
    const cars = this.remote.sample(serverNow).filter((e) => e.key === 'cars');
    // The other cars: predicted with the whole race, or as the server
    // sent them, a delay behind.
    const others = this.client instanceof sk.RaceClient
      ? this.client.poses().filter((c) => c.seat !== this.map.seat).map((c) => ({ id: c.seat, pose: poseArray(c.pose) }))
      : cars.filter((e) => e.id !== this.map.seat).map(({ id, row: r }) => ({ id, pose: [r.x, r.y, r.z, r.yaw, r.pitch, r.roll, r.steer, r.speed] }));
    if (this.scene.cars.length !== 1 + others.length) this.scene.setCars(Array(1 + others.length).fill(this.carShape));
    const own = poseArray(this.client.pose());
    this.scene.place(this.scene.cars[0], own);
    others.forEach((e, k) => {
      this.scene.place(this.scene.cars[k + 1], e.pose);
      if (!this.shown.remoteDrawn.includes(e.id)) this.shown.remoteDrawn.push(e.id);
    });
    this.scene.cars[0].group.visible = this.cameras.mode !== 'cockpit';
    this.cameras.update(own);
    this.scene.seeThrough(this.cameras.camera, 0);
    this.scene.render(this.cameras.camera);
    const p = this.shown.panel;
    $('#hud-pos').textContent = p.pos ?? '–';
    $('#hud-lap').textContent = p.lap ?? '1';
    // The leader's gap is 0: nothing to show.
    $('#hud-gap').textContent = p.gap && Number(p.gap) > 0 ? `+${p.gap} s` : '–';
    $('#hud-ping').textContent = this.shown.ping ?? '–';
    $('#hud-speed').textContent = (own[7] * 3.6).toFixed(0);
    // The engaged gear, as the server's cars block has it for this seat
    // (on the wire as gear + 1: 0 reverse, 1 neutral, 2 first…).
    const mine = cars.find((e) => e.id === this.map.seat);
    const gear = mine ? mine.row.gear - 1 : null;
    this.shown.gear = gear;
    $('#hud-gear').textContent = gear === null ? '–' : gear < 0 ? 'R' : gear === 0 ? 'N' : String(gear);
    this.lastDraw = time;
  }
}

const page = new RacePage();
/** @type {any} */ (window).skidpadRace = {
  /** What the page shows: state, seat, panel, ping, laps, game informs,
   * remote seats drawn, the prediction's record and its misses, the
   * driver's entry once fetched. */
  shown: () => ({ ...page.shown, stats: page.client?.stats() ?? null, misses: page.misses?.summary() ?? null }),
  /** What a driver looks at: the car's pose, its steer, the laps done,
   * whether the car is held on the grid before the start. */
  glance: () => ({ pose: page.shown.pose, steer: page.shown.steer, laps: page.shown.laps, held: page.held() }),
};
page.setup().catch((e) => page.fail(e));
