// The viewer page: wires the sources, the simulation worker, the
// recording tables, the clock, the scene, the cameras, the timeline, the
// telemetry charts, the standings and dashboard, the event list, the
// minimap, the car labels and the ghosts, and draws one frame per
// animation frame. `window.viewer` is the
// page's test and automation surface.

import init, * as sk from 'skidpad';
import { Recording } from './recording.mjs';
import { Clock, EventCursor, SPEEDS } from './clock.mjs';
import { Scene } from './scene.mjs';
import { Cameras, CAMERA_MODES } from './cameras.mjs';
import { Timeline, describeEvent, formatTime } from './timeline.mjs';
import { TelemetryPanel } from './telemetry.mjs';
import { GhostRace } from './ghosts.mjs';
import { RaceInfo } from './race_info.mjs';
import { EventList } from './event_list.mjs';
import { ClipControls } from './clip.mjs';
import { recordVideo } from './video.mjs';
import { Minimap } from './minimap.mjs';
import { CarLabels } from './labels.mjs';
import { carTitle, withDrivers } from './scene_data.mjs';
import { checkPosition, checkSettings, fetchBytes, readLink, servedFiles, writeLink } from './sources.mjs';

/** Frame work times kept for the statistics, frames. */
const FRAME_HISTORY = 4096;

const $ = (selector) => document.querySelector(selector);

class Viewer {
  constructor() {
    this.canvas = $('#view');
    this.scene = new Scene(this.canvas);
    this.cameras = new Cameras(this.canvas);
    this.clock = new Clock();
    this.events = new EventCursor();
    this.recording = null;
    /** A ground file's bytes (`.skgd`), for replays that do not carry
     * their ground. @type {Uint8Array | null} */
    this.ground = null;
    /** A glTF scene's bytes (`.glb`, `.gltf`): replays that do not carry
     * their ground play on its ground, and its meshes are drawn.
     * @type {Uint8Array | null} */
    this.sceneFile = null;
    /** A track file's definition (JSON) and name: replays opened after it
     * that name its track by fingerprint without carrying it use it.
     * @type {string | null} */
    this.trackDefinition = null;
    this.trackName = null;
    // Bytes of samples a replay may keep (undefined: the worker's default);
    // tests shrink it through the deep link.
    this.sampleBudget = undefined;
    this.car = 0;
    this.pose = new Float64Array(8);
    this.poses = [];
    this.frameTimes = new Float64Array(FRAME_HISTORY);
    this.frames = 0;
    this.lastLink = 0;
    this.worker = null;
    /** Events announced so far (the toast), for tests. */
    this.announced = [];
    this.timeline = new Timeline($('#timeline'), {
      toggle: () => (this.clock.paused ? this.clock.play(1) : this.clock.pause()),
      rewind: () => this.clock.play(-1),
      step: (n) => this.stepFrames(n),
      speed: (s) => this.clock.setSpeed(s),
      seek: (t) => this.seek(t),
      live: () => this.clock.follow(),
    });
    this.telemetry = new TelemetryPanel($('#telemetry'), (t) => this.seek(t));
    this.clips = new ClipControls($('#timeline'), {
      step: () => this.recording?.stepOf(this.recording.sampleAt(this.clock.time)) ?? 0,
      span: () => [this.recording?.start ?? 0, this.recording?.end ?? 0],
      timeOf: (step) => this.recording.times[this.recording.sampleOfStep(step)],
      cut: (from, to) => this.cut(from, to),
      record: (from, to) => this.recordClip(from, to),
      said: (text) => this.notice(text),
      name: () => this.recording?.meta.name ?? 'replay',
    });
    this.ghosts = new GhostRace(sk, $('#ghosts'));
    this.raceInfo = new RaceInfo($('#stage'), (car) => this.setCar(car));
    this.eventList = new EventList($('#stage'), (t) => this.seek(t), (car) => this.setCar(car));
    this.minimap = new Minimap($('#stage'));
    this.labels = new CarLabels($('#stage'));
    $('#car').addEventListener('change', (e) => this.setCar(Number(e.target.value)));
    $('#drive').addEventListener('click', () => this.driveFromHere());
    $('#camera').addEventListener('change', (e) => this.setCamera(e.target.value));
    $('#open').addEventListener('change', (e) => this.openFiles(e.target.files));
    document.body.addEventListener('dragover', (e) => e.preventDefault());
    document.body.addEventListener('drop', (e) => {
      e.preventDefault();
      this.openFiles(e.dataTransfer.files);
    });
    document.addEventListener('keydown', (e) => this.key(e));
    for (const mode of CAMERA_MODES) {
      const option = document.createElement('option');
      option.value = mode;
      option.textContent = mode;
      $('#camera').append(option);
    }
    new ResizeObserver(() => this.resize()).observe(this.canvas);
    this.resize();
  }

  resize() {
    const { clientWidth: w, clientHeight: h } = this.canvas;
    if (w === 0 || h === 0) return;
    this.scene.resize(w, h);
    this.cameras.resize(w, h);
  }

  /** Shows an error to the user (not only in the console). */
  fail(message) {
    const box = $('#error');
    box.textContent = message;
    box.hidden = false;
    // Said to the user above; the console keeps a note for whoever
    // debugs, not an error (a file that cannot be opened is not a bug).
    console.warn(message);
  }

  /** Shows what the deep link asked for that the viewer cannot do, and
   * what it does instead (kept with earlier messages). */
  linkProblems(problems) {
    for (const problem of problems) this.notice(`link: ${problem}`);
  }

  /** A line in the notice box (kept with earlier ones). */
  notice(text) {
    const box = $('#notice');
    const line = document.createElement('div');
    line.textContent = text;
    box.append(line);
    box.hidden = false;
  }

  status(text) {
    $('#status').textContent = text;
  }

  key(e) {
    if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
    if (e.key === ' ') this.clock.paused ? this.clock.play(1) : this.clock.pause();
    else if (e.key === ',' || e.key === 'ArrowLeft') this.stepFrames(-1);
    else if (e.key === '.' || e.key === 'ArrowRight') this.stepFrames(1);
    else return;
    e.preventDefault();
  }

  async openFiles(files) {
    // Ground and track files first: a replay dropped with them plays on
    // them.
    const grounds = [];
    const rest = [];
    for (const file of files) (/\.(skgd|glb|gltf|json|csv)$/i.test(file.name) ? grounds : rest).push(file);
    for (const file of [...grounds, ...rest]) {
      try {
        await this.openBytes(new Uint8Array(await file.arrayBuffer()), file.name);
      } catch (e) {
        this.fail(`${file.name}: ${e.message}`);
      }
    }
  }

  /** Opens a replay, stream, ghost or ground file by its bytes. A ground
   * file (`.skgd`) is kept for the replays opened after it that do not
   * carry the ground they were recorded on. */
  async openBytes(bytes, name) {
    const kind = isScene(bytes, name) ? 'scene' : isTrackFile(name) ? 'track' : sk.fileKind(bytes);
    if (kind === 'track') {
      this.trackDefinition = trackDefinitionOf(bytes, name);
      this.trackName = name;
      this.notice(`track ${name}: replays opened after it that name it without carrying it are timed and drawn on it`);
    } else if (kind === 'scene') {
      this.sceneFile = bytes;
      this.sceneName = name;
      this.notice(`glTF scene ${name}: replays opened after it play on its ground when they do not carry theirs, and its meshes are drawn`);
    } else if (kind === 'ghost') {
      this.addGhost(bytes, name);
    } else if (kind === 'ground') {
      this.ground = bytes;
      this.groundName = name;
      this.notice(`ground file ${name}: replays opened after it that do not carry their ground play on it`);
    } else if (kind === 'replay' || kind === 'stream') {
      // Kept for "drive from here" (the worker takes the bytes over).
      this.replayBytes = kind === 'replay' ? bytes.slice() : null;
      const scene = this.sceneFile?.slice() ?? null;
      await this.load({ kind: 'replay', bytes, name, ground: this.ground, groundName: this.groundName, scene, sceneName: this.sceneName, trackDefinition: this.trackDefinition, trackName: this.trackName, sampleBudget: this.sampleBudget }, [bytes.buffer]);
    } else {
      throw new Error(kind === 'empty' ? 'the file is empty' : 'not a skidpad replay (.skr), stream (.sks), ghost (.skg), ground file (.skgd), glTF scene (.glb, .gltf) or track file (.json, .csv)');
    }
  }

  addGhost(bytes, name) {
    this.ghosts.add(bytes, name);
    this.scene.setGhosts(this.ghosts.ghosts.length, this.recording?.meta.cars[this.car] ?? defaultCar());
  }

  /** Starts the worker on a replay or live race; resolves when its meta
   * arrived (the first samples follow), rejects on its error. */
  load(message, transfer = []) {
    this.worker?.terminate();
    this.worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
    this.recording = null;
    $('#error').hidden = true;
    this.status(`loading ${message.name ?? message.url}…`);
    this.loadStarted = performance.now();
    this.firstSamplesMs = null;
    this.done = new Promise((resolve, reject) => {
      this.finish = resolve;
      this.abort = reject;
    });
    // A failure after the meta still rejects `done`, and is shown.
    this.done.catch(() => {});
    return new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        try {
          if (data.kind === 'meta') {
            this.start(data);
            resolve();
          } else if (data.kind === 'cars') {
            this.carsJoined(data.cars);
          } else if (data.kind === 'samples') {
            this.recording.append(data);
            this.firstSamplesMs ??= performance.now() - this.loadStarted;
            this.grew();
          } else if (data.kind === 'done') {
            this.recording.finished = true;
            this.result = { ...data, loadMs: performance.now() - this.loadStarted, firstSamplesMs: this.firstSamplesMs };
            this.status(this.summary(data));
            this.finish(data);
          } else if (data.kind === 'clip') {
            this.clipWaiting?.resolve(data.bytes);
          } else if (data.kind === 'clip-error') {
            this.clipWaiting?.reject(new Error(data.message));
          } else if (data.kind === 'warning') {
            this.fail(data.message);
          } else if (data.kind === 'error') {
            throw new Error(data.message);
          }
        } catch (e) {
          this.fail(`${message.name ?? message.url}: ${e.message}`);
          // Not "loading" for ever: the page is ready for another file.
          this.status(OPEN_PROMPT);
          reject(e);
          this.abort(e);
        }
      };
      this.worker.onerror = (e) => {
        this.fail(`worker: ${e.message}`);
        reject(new Error(e.message));
        this.abort(new Error(e.message));
      };
      this.worker.postMessage(message, transfer);
    });
  }

  /** Steps `from` to `to` of the replay as `.skr` bytes, cut by the
   * worker (which holds the replay). */
  async cut(from, to) {
    try {
      return await new Promise((resolve, reject) => {
        this.clipWaiting = { resolve, reject };
        this.worker.postMessage({ kind: 'clip', from, to });
      });
    } catch (e) {
      this.fail(`clip of steps ${from} to ${to}: ${e.message}`);
      throw e;
    }
  }

  /** The view from step `from` to step `to`, played at the chosen speed,
   * as a WebM video. */
  async recordClip(from, to) {
    const rec = this.recording;
    const end = rec.times[rec.sampleOfStep(to)];
    try {
      return await recordVideo(this.canvas, () => new Promise((resolve) => {
        this.seekStep(from);
        this.clock.play(1);
        const watch = () => {
          if (this.clock.time >= end || this.clock.paused) {
            this.clock.pause();
            this.seek(end);
            // The end drawn, then one more frame for the recorder.
            requestAnimationFrame(() => requestAnimationFrame(resolve));
            return;
          }
          requestAnimationFrame(watch);
        };
        requestAnimationFrame(watch);
      }));
    } catch (e) {
      this.fail(`video of steps ${from} to ${to}: ${e.message}`);
      throw e;
    }
  }

  summary(done) {
    const rec = this.recording;
    const meta = rec.meta;
    const desync = done.desyncs > 0 ? ` · ${done.desyncs} DESYNC${done.desyncs === 1 ? '' : 'S'}` : ' · 0 desyncs';
    // An older version's replay names the archived core that played it.
    const core = meta.core === 'archived' ? ' (archived core)' : '';
    return `${meta.name}: ${meta.cars.length} cars, ${formatTime(rec.end)}${meta.source === 'live' ? ' (live, ended)' : desync} · simulation v${meta.simulationVersion}${core}`;
  }

  start(meta) {
    meta.cars = withDrivers(meta.cars, meta.metadata);
    this.recording = new Recording(meta);
    // The timed track's road, or one drawn from the replay's ground alone.
    // A scene's own meshes (its ground among them), else the carried
    // ground in its surfaces' colours.
    if (meta.sceneMeshes) this.scene.setSceneMeshes(meta.sceneMeshes);
    else this.scene.setGround(meta.ground);
    this.scene.setTrack(meta.track ?? meta.road);
    this.cameras.setTrack(meta.track ?? meta.road);
    if (meta.notice) this.notice(meta.notice);
    this.scene.setCars(meta.cars);
    this.labels.setCars(meta.cars);
    this.minimap.setTrack(meta.track ?? meta.road);
    this.ghosts.setTrack(meta.track?.definition ?? null);
    this.scene.setGhosts(this.ghosts.ghosts.length, meta.cars[0]);
    this.fillCarPicker(meta.cars);
    this.clock.live = meta.source === 'live';
    this.timeline.setLive(this.clock.live);
    if (this.clock.live) this.clock.follow();
    this.telemetry.setRecording(this.recording);
    this.raceInfo.setRecording(this.recording, meta.track?.length ?? 0);
    this.eventList.setRecording(this.recording);
    this.clips.reset(meta.source === 'replay' && meta.core !== 'archived');
    this.setCar(Math.min(this.car, meta.cars.length - 1));
  }

  /** The car picker's options, one per car. */
  fillCarPicker(cars) {
    $('#car').replaceChildren(
      ...cars.map((car, k) => {
        const option = document.createElement('option');
        option.value = String(k);
        option.textContent = carTitle(car, k);
        return option;
      }),
    );
  }

  /** Cars joined the live race (`cars`: all of them, the new ones last):
   * the recording, the scene, the labels and the car picker take them,
   * with no pose before they came. */
  carsJoined(cars) {
    const named = withDrivers(cars, this.recording.meta.metadata);
    this.recording.addCars(named);
    this.scene.setCars(named);
    this.labels.setCars(named);
    this.fillCarPicker(named);
    $('#car').value = String(this.car);
  }

  /** More samples arrived. */
  grew() {
    const rec = this.recording;
    this.clock.setRange(rec.start, rec.end);
    this.timeline.setRange(rec.start, rec.end);
    this.timeline.setMarkers(rec.events);
    this.clips.update();
    if (rec.count === rec.meta.samples) this.telemetry.rebuild();
    if (rec.meta.source !== 'live') this.status(`re-simulating: ${formatTime(rec.end)} of ${formatTime(rec.meta.duration)}`);
  }

  /** Opens the play page driving on from the step shown, in the car the
   * camera follows, the others on their recordings (`TakeOver`). */
  driveFromHere() {
    if (!this.replayBytes || !this.recording) {
      this.notice('drive from here takes a replay file (.skr): open one first');
      return;
    }
    const step = this.recording.stepOf(this.recording.sampleAt(this.clock.time));
    const from = URL.createObjectURL(new Blob([this.replayBytes]));
    window.open(`/play?from=${encodeURIComponent(from)}&step=${step}&seat=${this.car ?? 0}`, '_blank');
  }

  setCar(car) {
    this.car = car;
    $('#car').value = String(car);
    this.telemetry.setCar(car);
  }

  setCamera(mode) {
    this.cameras.setMode(mode);
    $('#camera').value = mode;
  }

  seek(t) {
    this.clock.seek(t);
    this.events.reset();
  }

  /** Jumps to step `step`'s sample. */
  seekStep(step) {
    const rec = this.recording;
    this.seek(rec.times[rec.sampleOfStep(step)]);
  }

  /** Pauses and moves `n` samples (steps) from the current one. */
  stepFrames(n) {
    const rec = this.recording;
    if (!rec || rec.count === 0) return;
    this.clock.pause();
    let i = rec.sampleAt(this.clock.time);
    if (n < 0 && rec.times[i] < this.clock.time) i += 1;
    this.seek(rec.times[Math.min(Math.max(i + n, 0), rec.count - 1)]);
  }

  /** Draws the scene at playback time `t`. */
  draw(t) {
    const rec = this.recording;
    if (!rec || rec.count === 0) return;
    // One buffer per car, reused every frame (no garbage while scrubbing).
    while (this.poses.length < rec.cars) this.poses.push(new Float64Array(8));
    for (let car = 0; car < rec.cars; car++) {
      this.scene.place(this.scene.cars[car], rec.poseAt(t, car, this.poses[car]));
    }
    const followed = this.poses[this.car];
    // From the driver's seat the car's own body would fill the view.
    const removed = Number.isNaN(followed[0]);
    this.scene.cars[this.car].group.visible = !removed && this.cameras.mode !== 'cockpit';
    // A car the recording removed has no pose: the camera stays where it was.
    if (!removed) this.cameras.update(followed);
    this.ghosts.update(rec, this.car, t, followed, (k, pose) => {
      const mesh = this.scene.ghosts[k];
      if (!mesh) return;
      if (pose) this.scene.place(mesh, pose);
      else mesh.group.visible = false;
    });
    this.scene.seeThrough(this.cameras.camera, this.car);
    this.scene.render(this.cameras.camera);
    this.labels.place(this.poses, this.cameras.camera, this.canvas.clientWidth, this.canvas.clientHeight, this.car);
    this.minimap.draw(this.poses, this.car);
    this.telemetry.showTime(t);
    this.raceInfo.show(t, this.car);
    this.eventList.show(this.car);
    const i = rec.sampleAt(t);
    this.timeline.show(t, rec.stepOf(i), !this.clock.paused);
    for (const e of this.events.crossed(rec.events, t)) this.announce(e);
  }

  /** An event crossed during playback: shown once. */
  announce(e) {
    this.announced.push(e);
    const toast = $('#toast');
    toast.textContent = `${describeEvent(e)} (step ${e.step})`;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => (toast.hidden = true), 2500);
  }

  frame(now) {
    const begin = performance.now();
    const t = this.clock.tick(now);
    this.draw(t);
    this.frameTimes[this.frames % FRAME_HISTORY] = performance.now() - begin;
    this.frames += 1;
    if (this.recording && now - this.lastLink > 1000 && this.clock.paused) {
      this.lastLink = now;
      writeLink({ t, car: this.car, cam: this.cameras.mode });
    }
  }

  run() {
    const loop = (now) => {
      try {
        this.frame(now);
      } catch (e) {
        this.fail(`drawing failed: ${e.message}`);
        return;
      }
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }
}

/** What the status line asks for when nothing is open. */
const OPEN_PROMPT = 'open a replay (.skr), stream (.sks), ghost (.skg), ground file (.skgd), glTF scene (.glb) or track file (.json, .csv), or drop one here';

/** Whether a file is a glTF scene: a GLB by its first bytes, or a `.gltf`
 * or `.glb` by its name. */
function isScene(bytes, name) {
  const glb = bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
  return glb || /\.(glb|gltf)$/i.test(name ?? '');
}

/** Whether a file is a track file, by its name: a definition's JSON, or
 * a centre line with widths as CSV (the TUM racetrack database's). */
function isTrackFile(name) {
  return /\.(json|csv)$/i.test(name ?? '');
}

/** A track file's definition (JSON): a `.json` definition as it reads, a
 * `.csv` centre line imported as `skidpad track import` does. Throws,
 * naming what is wrong, for a file that is neither. */
function trackDefinitionOf(bytes, name) {
  const text = new TextDecoder().decode(bytes);
  const track = /\.csv$/i.test(name) ? sk.TrackView.fromTumCsv(text, name.replace(/\.csv$/i, '')) : sk.TrackView.fromDefinition(text);
  try {
    return track.definitionJson();
  } finally {
    track.free();
  }
}

/** Proportions for ghosts shown before any replay. */
function defaultCar() {
  return { name: 'ghost', wheelbase: 2.5, cgToFront: 1.1, cgHeight: 0.5, trackFront: 1.5, trackRear: 1.5, wheelRadius: 0.31 };
}

async function main() {
  await init();
  const viewer = new Viewer();
  /** @type {any} */ (window).viewer = viewer;
  viewer.run();
  const link = readLink();
  // Tests shrink the memory budget to exercise the sampled tables.
  viewer.sampleBudget = link.sampleBudget ?? undefined;
  const settings = checkSettings(link, CAMERA_MODES, SPEEDS);
  viewer.linkProblems(link.problems.concat(settings.problems));
  viewer.setCamera(settings.cam);
  viewer.clock.setSpeed(settings.speed);
  viewer.timeline.setSpeed(settings.speed);
  const served = await servedFiles(link);
  const urls = [...link.sources, ...served.map((f) => f.url)];
  const ghostUrls = [...link.ghosts];
  // Ghosts, ground and track files first, so a replay's first frame
  // already shows the ghosts and a replay that needs them plays on them.
  const opened = [];
  for (const url of urls) {
    const bytes = await fetchBytes(url);
    const name = url.split('/').pop();
    const kind = isScene(bytes, name) ? 'scene' : isTrackFile(name) ? 'track' : sk.fileKind(bytes);
    if (kind === 'ghost') viewer.addGhost(bytes, name);
    else if (kind === 'ground' || kind === 'scene' || kind === 'track') await viewer.openBytes(bytes, name);
    else opened.push([bytes, url]);
  }
  for (const url of ghostUrls) viewer.addGhost(await fetchBytes(url), url.split('/').pop());
  if (link.live) {
    await viewer.load({ kind: 'live', url: link.live });
  } else if (opened.length > 0) {
    const [bytes, url] = opened[0];
    await viewer.openBytes(bytes, (url === link.sources[0] && link.name) || url.split('/').pop());
  } else {
    viewer.status(OPEN_PROMPT);
    return;
  }
  const position = checkPosition(link, viewer.recording.meta);
  viewer.linkProblems(position.problems);
  viewer.setCar(position.car);
  // The deep link's time once every sample is there (registered before
  // anyone else can wait on `done`, so it applies first).
  viewer.done.then(() => {
    if (position.clip) viewer.clips.setRange(...position.clip);
    if (position.step !== null) viewer.seekStep(position.step);
    else if (position.t !== null) viewer.seek(position.t);
    else if (position.clip) viewer.seekStep(position.clip[0]);
  });
}

const ready = main().catch((e) => {
  const box = /** @type {HTMLElement} */ (document.querySelector('#error'));
  box.textContent = e.message;
  box.hidden = false;
  throw e;
});
// The page has shown the failure: it is not an uncaught error as well
// (`viewerReady` still rejects for whoever awaits it).
ready.catch(() => {});
/** @type {any} */ (window).viewerReady = ready;
