// The play page's simulation thread: one car on its track's own surface
// (a built-in track, or a game's own that the serving leaderboard
// registered), stepped at a fixed 60 Hz by this thread's clock (never by the
// page's frames), driven through the input layer by the devices the page
// reports, recorded as a replay, timed lap by lap by the race layer and
// raced against the best lap's ghost. Holding the rewind key takes the
// run back a second at a time, up to 10 s (a flashback): the world and
// the recording through `ReplayRecorder.rewind`, the lap timing, the
// lap's ghost and the laps from copies kept at each keyframe.
//
//   → { kind: 'start', choice (run_setup.mjs's), player, ghost?: Uint8Array, countdown?: s,
//       rate?: steps per second, profile?: device profile JSON, gears?: mode,
//       script?: keys per step, takeOver?: { bytes, step, car } (drive on
//       from a replay's step: track and car are the replay's) }
//   → { kind: 'devices', keys, pads: [{ axes: Float64Array, buttons: Uint8Array }] }
//   → { kind: 'finish' }       → { kind: 'stats' }
//   ← ready { track, car, takenOver }, countdown { remaining }, frame { step, time,
//     pose, ghost, hud }, lap { lap, time, valid, faults, best }, ghost { bytes,
//     time }, finished { replay, laps }, stats { stepMs, latencyMs },
//     error { message }
//
// The inputs of a step are whatever the page last reported before it:
// a keyboard's ramps and a pad's curves run here, at the physics step,
// so a replay records exactly the CarInput each step ran with. A press
// (a shift, the reset key) counts even when the key went down and up
// again between two steps: it is kept until a step takes it. A `script`
// (a test's) gives the keys of each step instead, and the run finishes
// by itself after its last step: the same script gives the same replay
// whatever the page's frame rate.

import init, * as sk from '/pkg/web/skidpad_wasm.js';
import { describeCar, trackGeometry } from './scene_data.mjs';
import { trackOf, worldWith } from './run_setup.mjs';

const DT = 1 / 60;
/** Most steps one tick may run to catch up; beyond it the game slows
 * down instead of spiralling (a stalled tab resumes, not races ahead). */
const MAX_CATCH_UP = 8;
/** Recorded with the replay so the leaderboard ranks the right car. */
const PLAYER_CAR = '0';
/** Steps between keyframes, and between the copies of the game's state a
 * rewind goes back to: a rewind lands on one, one second apart. */
const KEYFRAME_STEPS = 60;
/** Copies kept: the rewind window, 10 s back from the newest. */
const REWIND_COPIES = 11;
/** Steps of the clock per rewind while the key is held (10 a second). */
const REWIND_PACE = 6;

/** Keys that act once per press rather than while held. */
const PRESS_KEYS = ['shiftUp', 'shiftDown', 'reset'];

const ready = init();
let game = null;
let devices = { keys: {}, pads: [] };
/** Presses the page reported that no step has taken yet. */
let pressed = {};
/** When the page sent a device change the steps have not used yet
 * (ms since the epoch, both threads' clocks), and the measurements: each
 * step's cost and each change's wait until a step used it. */
let pendingChange = null;
const perf = { stepMs: [], latencyMs: [] };
const keep = (list, value) => {
  list.push(value);
  if (list.length > 3600) list.shift();
};

self.onmessage = async ({ data }) => {
  try {
    await ready;
    if (data.kind === 'start') start(data);
    else if (data.kind === 'devices') {
      devices = data;
      for (const key of PRESS_KEYS) if (data.keys?.[key]) pressed[key] = true;
      if (data.changed && pendingChange === null) pendingChange = data.sentAt;
    } else if (data.kind === 'finish') finish();
    else if (data.kind === 'stats') self.postMessage({ kind: 'stats', ...perf });
  } catch (e) {
    self.postMessage({ kind: 'error', message: e?.message ? String(e.message) : String(e) });
  }
};

/** A fresh run: the choice's car (`run_setup.mjs`) on the grid of its
 * track. */
function freshRun(choice, gears) {
  const track = trackOf(sk, choice);
  const { world, car } = worldWith(sk, track, choice, sk.gridPose(track, 0), gears);
  return { track, trackName: choice.key, trackDefinition: choice.trackDefinition, world, car, takeOver: null, shadow: null };
}

/** A run taken over at `step` of a replay, the player in car `index`, the
 * other cars on their recordings; the replay itself plays beside it (its
 * car `index` drawn as the ghost), as the record the player drives
 * against. */
function takenOverRun({ bytes, step, car: index }) {
  const source = sk.decodeReplay(bytes);
  const track = source.track();
  if (!track) throw new Error('the replay names no track to drive on');
  const takeOver = new sk.TakeOver(source, step, index);
  const world = takeOver.takeWorld();
  const shadow = new sk.ReplayPlayer(sk.createReplayWorld(source), source);
  shadow.seek(step);
  const origin = takeOver.origin();
  return {
    track, trackName: track.name, world, car: takeOver.player, takeOver,
    shadow: { player: shadow, car: takeOver.carId(index), from: step, steps: source.stepCount },
    origin,
  };
}

function start({ choice, player, ghost, countdown = 3, rate = 60, profile = null, gears = 'automatic', script = null, takeOver = null }) {
  const run = takeOver ? takenOverRun(takeOver) : freshRun(choice, gears);
  const { track, world, car, trackName } = run;
  const definition = JSON.parse(world.definition(car));
  // The player's car in the pose arrays the race timing reads.
  const seat = Array.from(world.carIds()).indexOf(car);
  const topGear = definition.gearbox.ratios.length;
  const reference = ghost ? ghostReference(ghost, track) : null;
  game = {
    track, trackName, trackDefinition: run.trackDefinition ?? null, world, car, seat, topGear, reference,
    takeOver: run.takeOver, shadow: run.shadow,
    player: player || 'anonymous',
    keyboard: new sk.KeyboardControls(),
    pad: profile ? sk.DeviceProfile.fromJson(profile) : sk.DeviceProfile.standardGamepad(),
    mixer: new sk.InputMixer(),
    gears: new sk.GearSelector(/** @type {sk.GearMode} */ (gears), topGear),
    script,
    recorder: null,
    timing: null,
    ghostRecorder: new sk.GhostRecorder(car),
    /** Splits against the ghost lap (none without one), and the lap in
     * progress's so far: `[{ checkpoint, line, delta }]`. */
    splits: null,
    lapSplits: [],
    lapStart: 0,
    best: null,
    laps: [],
    step: 0,
    /** The script's next entry (steps and rewinds both use one). */
    scriptAt: 0,
    /** Copies of the game's state at the last keyframes, oldest first. */
    copies: [],
    rewinds: 0,
    rewindCountdown: 0,
    /** The reset key was held at the last step (a reset per press). */
    resetHeld: false,
    // Race time, summed step by step as the leaderboard's judge sums it,
    // so a lap's time here is the judge's to the last bit.
    time: 0,
    startedAt: performance.now() + countdown * 1000,
    interval: 1000 / rate,
    timer: 0,
  };
  self.postMessage({
    kind: 'ready',
    car: describeCar(definition),
    // The hand wheel's angle at full lock, rad (a definition without a
    // `feel` has the core's default, 450°): the page turns a wheel's
    // steer reading into its speed for the force feedback's runaway
    // latch.
    handWheelLock: definition.steering.feel?.hand_wheel_lock ?? (450 * Math.PI) / 180,
    track: trackGeometry(track),
    takenOver: run.origin ?? null,
    // A taken-over race's other cars, drawn where their recordings (or
    // the AI) take them.
    others: otherCars(world, car).map((id) => describeCar(JSON.parse(world.definition(id)))),
  });
  game.timer = setInterval(tick, 4);
}

/** The world's cars but the player's, in id order. */
function otherCars(world, car) {
  return Array.from(world.carIds()).filter((id) => id !== car);
}

/** A pose as the page's frames carry it. */
function poseArray(p) {
  return [p.x, p.y, p.z, p.yaw, p.pitch, p.roll, p.steer, p.speed];
}

function ghostReference(bytes, track) {
  const ghost = sk.decodeGhost(bytes);
  return { player: new sk.GhostPlayer(ghost), lap: new sk.LapReference(ghost, track) };
}

function tick() {
  const g = game;
  const now = performance.now();
  if (now < g.startedAt) {
    self.postMessage({ kind: 'countdown', remaining: (g.startedAt - now) / 1000 });
    postFrame();
    return;
  }
  if (!g.recorder) begin();
  const due = Math.floor((now - g.startedAt) / g.interval) - g.step;
  if (due > MAX_CATCH_UP) g.startedAt += (due - MAX_CATCH_UP) * g.interval;
  let rewound = false;
  for (let k = 0; k < Math.min(due, MAX_CATCH_UP); k++) {
    if (g.script && g.scriptAt >= g.script.length) {
      finish();
      return;
    }
    if (g.script ? g.script[g.scriptAt]?.rewind : devices.keys?.rewind) {
      rewound = true;
      if (g.script) {
        g.scriptAt += 1;
        rewindOnce();
      } else if (--g.rewindCountdown <= 0) {
        g.rewindCountdown = REWIND_PACE;
        rewindOnce();
      }
      continue;
    }
    g.rewindCountdown = 0;
    step();
  }
  // Time spent going back is not time to catch up on.
  if (rewound) g.startedAt = now - g.step * g.interval;
  if (due > 0) postFrame();
}

/** What the game keeps beside the world, at a keyframe: a rewind to it
 * puts all of it back. */
function keepCopy() {
  const g = game;
  g.copies.push({
    step: g.step, time: g.time, laps: g.laps.length, best: g.best, reference: g.reference,
    lapStart: g.lapStart, timing: g.timing.copy(), ghostRecorder: g.ghostRecorder.copy(),
    splits: g.splits?.copy() ?? null, lapSplits: [...g.lapSplits],
  });
  if (g.copies.length > REWIND_COPIES) forget(g.copies.shift());
}

function forget(copy) {
  copy.timing.free();
  copy.ghostRecorder.free();
  copy.splits?.free();
}

/** Goes back to the keyframe before the current step, if the window
 * reaches it: the world and the recording (bit for bit where they were),
 * the race time, the lap timing, the lap's ghost, the laps and the best. */
function rewindOnce() {
  const g = game;
  const back = g.copies.findLast((c) => c.step < g.step);
  if (!back) return;
  g.recorder.rewind(g.world, back.step);
  while (g.copies.at(-1) !== back) forget(g.copies.pop());
  g.timing.free();
  g.ghostRecorder.free();
  g.splits?.free();
  Object.assign(g, {
    step: back.step, time: back.time, best: back.best, reference: back.reference, lapStart: back.lapStart,
    timing: back.timing.copy(), ghostRecorder: back.ghostRecorder.copy(),
    splits: back.splits?.copy() ?? null, lapSplits: [...back.lapSplits],
  });
  g.laps.length = back.laps;
  g.rewinds += 1;
  g.takeOver?.rewoundTo(back.step);
  g.shadow?.player.seek(Math.min(g.shadow.from + back.step, g.shadow.steps));
}

/** Keyframe 0 at rest on the grid: the recording starts at "go". */
function begin() {
  const g = game;
  if (g.takeOver) {
    g.recorder = g.takeOver.recorder(g.world, {
      keyframeEvery: KEYFRAME_STEPS,
      metadata: { player: g.player, player_car: String(g.takeOver.origin().car), source: 'play page' },
    });
  } else {
    // A built-in track is named; a game's own travels as its definition
    // (the recorder names it by its fingerprint, as the boards do).
    const named = g.trackDefinition ? {} : { track: g.trackName };
    g.recorder = new sk.ReplayRecorder(g.world, {
      keyframeEvery: KEYFRAME_STEPS,
      trackDefinition: g.trackDefinition ?? undefined,
      metadata: { ...named, player: g.player, player_car: PLAYER_CAR, source: 'play page' },
    });
  }
  // An open session: laps until the player finishes.
  g.timing = new sk.RaceTiming(g.track, g.world.poses());
  g.splits = g.reference ? new sk.SplitTracker(g.reference.lap, g.time) : null;
  keepCopy();
}

function step() {
  const began = performance.now();
  if (pendingChange !== null) {
    keep(perf.latencyMs, performance.timeOrigin + began - pendingChange);
    pendingChange = null;
  }
  stepOnce();
  keep(perf.stepMs, performance.now() - began);
}

function stepOnce() {
  const g = game;
  const speed = g.world.channel(g.car, 'speed');
  const { keys = {}, pads = [] } = g.script ? { keys: g.script[g.scriptAt] ?? {} } : withPresses(devices);
  if (keys.reset && !g.resetHeld) resetCar();
  g.resetHeld = !!keys.reset;
  const frames = [{
    controls: g.keyboard.update(keys, DT, speed),
    shift: { up: !!keys.shiftUp, down: !!keys.shiftDown, gate: keys.gate ?? null },
  }];
  for (const pad of pads) {
    frames.push({ controls: g.pad.controls(pad.axes, pad.buttons), shift: g.pad.shiftButtons(pad.buttons) });
  }
  const mixed = g.mixer.update(frames);
  const gear = g.gears.update(mixed.shift);
  g.world.setInput(g.car, sk.carInputFrom(mixed.controls, gear, g.topGear));
  g.takeOver?.prepareFollowers(g.world);
  g.recorder.step(g.world, DT);
  if (g.shadow && !g.shadow.player.atEnd) g.shadow.player.advance();
  g.ghostRecorder.afterStep(g.world);
  g.step += 1;
  g.scriptAt += 1;
  g.time += DT;
  const time = g.time;
  if (g.splits) {
    const pose = g.world.pose(g.car);
    for (const s of g.splits.update(g.reference.lap, pose.x, pose.y, time)) {
      g.lapSplits.push({ checkpoint: s.checkpoint, line: s.line, delta: s.delta });
    }
  }
  for (const event of g.timing.observe(time, g.world.poses())) {
    if (event.kind === 'lap' && event.car === g.seat) lapDone(event, time);
  }
  if (g.step % KEYFRAME_STEPS === 0) keepCopy();
}

/** The devices as a step takes them: the keys held, and every press
 * reported since the last step (then forgotten). */
function withPresses(held) {
  const keys = { ...held.keys, ...pressed };
  pressed = {};
  return { ...held, keys };
}

/** The reset key: the car back on the centre line level with it, at rest
 * and facing along the track (the AI's own reset). The world records the
 * reset in the replay, and the lap in progress does not count, as in
 * every skidpad tool's timing. */
function resetCar() {
  const g = game;
  const pose = g.world.pose(g.car);
  g.world.resetCar(g.car, sk.rejoinPose(g.track, pose.x, pose.y));
  g.timing.noteReset(g.seat);
}

function lapDone(event, time) {
  const g = game;
  g.laps.push({ lap: event.lap, time: event.time, valid: event.valid, faults: event.faults });
  const ghost = g.ghostRecorder.finish();
  g.ghostRecorder.restart();
  g.lapStart = event.end;
  const better = event.valid && (g.best === null || event.time < g.best);
  if (better) {
    g.best = event.time;
    // The new best lap becomes the ghost to race from the next lap on.
    const bytes = sk.encodeGhost(ghost);
    g.reference = ghostReference(bytes, g.track);
    g.splits?.free();
    g.splits = new sk.SplitTracker(g.reference.lap, event.end);
    self.postMessage({ kind: 'ghost', bytes, time: event.time });
  }
  // Splits are the lap in progress's.
  g.lapSplits = [];
  self.postMessage({ kind: 'lap', lap: event.lap, time: event.time, valid: event.valid, faults: event.faults, best: g.best, at: time });
}

function postFrame() {
  const g = game;
  const pose = g.world.pose(g.car);
  const time = g.time;
  const lapTime = g.recorder ? time - g.lapStart : 0;
  let ghost = null;
  let delta = null;
  if (g.shadow) {
    // The source run's own car, where it was at this step.
    ghost = poseArray(g.shadow.player.pose(g.shadow.car));
  } else if (g.reference && g.recorder) {
    ghost = poseArray(g.reference.player.poseAt(lapTime));
    delta = g.reference.lap.gap(pose.x, pose.y, lapTime) ?? null;
  }
  self.postMessage({
    kind: 'frame',
    step: g.step,
    time,
    pose: poseArray(pose),
    ghost,
    others: otherCars(g.world, g.car).map((id) => poseArray(g.world.pose(id))),
    hud: {
      speed: pose.speed,
      gear: g.world.channel(g.car, 'gear'),
      rpm: g.world.channel(g.car, 'engine_rpm'),
      torque: g.world.channel(g.car, 'driver_torque'),
      steer: g.world.channel(g.car, 'input_steer'),
      throttle: g.world.channel(g.car, 'input_throttle'),
      lapTime,
      lap: g.laps.length + 1,
      last: g.laps.at(-1)?.time ?? null,
      best: g.best,
      delta,
      // Why the lap being driven will not count, the moment it is lost.
      lapFaults: g.timing ? g.timing.lapFaults(g.seat) : [],
      ghostWaits: !g.shadow && !g.reference,
      splits: g.lapSplits,
      rewinds: g.rewinds,
    },
  });
}

function finish() {
  const g = game;
  if (!g) return;
  clearInterval(g.timer);
  if (!g.recorder) throw new Error('the race has not started');
  const replay = g.recorder.finish(g.world);
  const bytes = sk.encodeReplay(replay);
  self.postMessage({ kind: 'finished', replay: bytes, laps: g.laps }, [bytes.buffer]);
  game = null;
}
