// The viewer's simulation thread. It re-simulates a replay (or follows a
// live spectator stream) in the skidpad wasm package and posts the result
// in batches, so the page can start drawing before the end is reached and
// never simulates on its own thread:
//
//   → { kind: 'replay', bytes, name, ground?, groundName?, sampleBudget? }
//     (ground: a ground file's bytes, for a replay that does not carry its
//     ground)   → { kind: 'live', url }
//   → { kind: 'clip', from, to }: steps from–to of the replay as .skr bytes
//
// A replay of an older simulation version plays in that version's archived
// core (archived.mjs), fetched from /cores/ when such a replay arrives.
//   ← meta, then batches of samples (times, poses, track distances,
//     telemetry), events (laps, desyncs, resets), then done; or error;
//   ← { kind: 'clip', from, to, bytes } for a clip.
//
// A sample is the world after a step; sample 0 is the world before the
// first one. Workers do not see the page's import map, so the package is
// imported by its served path.

import init, * as sk from '/pkg/web/skidpad_wasm.js';
import { spectate } from '/pkg/spectator.mjs';
import { RaceLaps } from './laps.mjs';
import { POSE } from './recording.mjs';
import { describeCar, trackGeometry } from './scene_data.mjs';
import { loadArchivedCore } from './archived.mjs';

/** Memory the page's tables may take, bytes: a replay whose every step
 * would not fit is sampled every k-th step (interpolation bridges the
 * gaps; the poses at the kept steps stay exact). */
const SAMPLE_BUDGET = 384 * 1024 * 1024;
/** Samples per posted batch. */
const BATCH = 600;

const ready = init();
/** The replay being played (current simulation version), for clips. */
let playing = null;

self.onmessage = async ({ data }) => {
  try {
    await ready;
    if (data.kind === 'clip') {
      clip(data.from, data.to);
    } else if (data.kind === 'replay') {
      const budget = data.sampleBudget ?? SAMPLE_BUDGET;
      const older = olderVersion(data.bytes);
      // A ground file given beside the replay, for one that does not
      // carry its ground.
      const replay = older === null ? decode(data.bytes) : null;
      if (replay) playOnItsGround(replay, data, budget);
      else await playArchived(data.bytes, older, data.name, budget);
    } else if (data.kind === 'live') await followLive(data.url);
  } catch (e) {
    self.postMessage({ kind: 'error', message: describe(e) });
  }
};

/** Plays a replay on the ground it was recorded on: the one it names or
 * carries, or the one opened with it: a glTF scene's (`data.scene`, whose
 * meshes are then drawn) or a ground file's (`data.ground`); a game's own
 * ground it neither carries nor was given is asked for by file. */
function playOnItsGround(replay, data, budget) {
  const scene = data.scene ? sceneOf(data.scene, data.sceneName) : null;
  const [groundBytes, groundName] = scene ? [scene.groundFile, data.sceneName] : [data.ground, data.groundName];
  try {
    // A replay that carries its ground keeps its own (the file is not used).
    const fromFile = groundBytes && !replay.carriedGround() ? groundName : null;
    const onGround = groundBytes ? replay.withGroundFile(groundBytes) : replay;
    // The track named by fingerprint: a track file's, else the scene's.
    const [definition, trackName] = data.trackDefinition ? [data.trackDefinition, data.trackName] : [scene?.definition, data.sceneName];
    const played = definition ? withTrackFile(onGround, definition, trackName) : onGround;
    // The scene's meshes are drawn only over the ground they came with.
    const drawn = scene && scene.groundFingerprint === replay.groundFingerprint ? scene.meshes : null;
    const sceneNotice = scene && !drawn ? `the scene ${data.sceneName} is not the ground this replay was recorded on: its meshes are not drawn` : null;
    playReplay(played, data.name, budget, fromFile, { meshes: drawn, notice: sceneNotice });
  } catch (e) {
    if (e?.code !== 'ground_mismatch') throw e;
    const what = data.ground
      ? 'the ground file opened before it is another ground'
      : 'it does not carry that ground';
    throw new Error(`${describe(e).replace(/: play it in a world.*$/, '')}; ${what}. Open the game's ground file (.skgd) with it: drop both on the page, or \`skidpad view ${data.name} GROUND.skgd\``, { cause: e });
  }
}

/** A glTF scene opened with a replay (the importer `skidpad track import`
 * uses): its ground as a ground file, that ground's fingerprint, and its
 * meshes to draw. */
function sceneOf(bytes, name) {
  const scene = sk.TrackScene.fromGltf(bytes, name.replace(/\.(glb|gltf)$/i, ''));
  try {
    const track = scene.track;
    const definition = track.definitionJson();
    track.free();
    return {
      definition,
      groundFile: scene.groundFile(),
      groundFingerprint: scene.groundFingerprint,
      meshes: Array.from({ length: scene.meshCount }, (_, k) => scene.mesh(k)),
    };
  } finally {
    scene.free();
  }
}

/** `replay` with the track of a track file opened with it (a
 * definition's JSON), for a replay that names that track by fingerprint
 * without carrying it; a file of another track is said and left out. */
function withTrackFile(replay, definition, name) {
  const track = sk.TrackView.fromDefinition(definition);
  try {
    return replay.withTrack(track);
  } catch (e) {
    self.postMessage({ kind: 'warning', message: `${name}: ${describe(e)}` });
    return replay;
  } finally {
    track.free();
  }
}

/** Steps `from` to `to` of the replay as a replay of their own; a
 * failure is the clip's, not the playback's. */
function clip(from, to) {
  try {
    if (!playing) throw new Error('only a replay of this simulation version can be clipped');
    const bytes = sk.encodeReplay(sk.clipReplay(playing, from, to));
    self.postMessage({ kind: 'clip', from, to, bytes }, [bytes.buffer]);
  } catch (e) {
    self.postMessage({ kind: 'clip-error', message: describe(e) });
  }
}

function describe(e) {
  return e?.message ? String(e.message) : String(e);
}

/** Car descriptions the page builds meshes from. */
function carsOf(definitions) {
  return definitions.map((json) => describeCar(JSON.parse(json)));
}

/** What the page draws of a track (a TrackView) named `name` (a built-in
 * track's key, or an own track's own name), and the view itself for lap
 * timing. The definition travels so the page's own package builds the
 * same track (ghost lap references). */
function trackData(view, name) {
  return {
    view,
    geometry: {
      ...trackGeometry(view, name),
      definition: view.definitionJson(),
    },
  };
}

// A recording's track by its `track` metadata, as the replay crate finds
// it (ReplayHeader::track: a built-in track, or a game's own one the
// recording carries): none named, no track drawn and no laps; one this
// package cannot find is said, then treated the same.
function trackOf(recording) {
  let view;
  try {
    view = recording.track();
  } catch (e) {
    self.postMessage({ kind: 'warning', message: `${describe(e)}: drawn without a track` });
    return null;
  }
  if (!view) return null;
  const key = recording.metadata().track;
  return trackData(view, sk.trackNames().includes(key) ? key : view.name);
}

// A built-in track by name (a surface found by its ground's fingerprint,
// or an archived core's replay, whose versions had only built-in tracks).
function builtinTrack(name) {
  if (!name) return null;
  if (!sk.trackNames().includes(name)) {
    self.postMessage({ kind: 'warning', message: `the replay names track "${name}", which this viewer does not have: drawn without a track` });
    return null;
  }
  return trackData(new sk.TrackView(name), name);
}

/** A replay from `.skr` bytes (plain or gzip), or from a `.sks` stream:
 * everything up to its first damaged record, as `skidpad recover` reads
 * it. */
function decode(bytes) {
  if (sk.fileKind(bytes) !== 'stream') return sk.decodeReplay(bytes);
  const contents = sk.readStream(bytes);
  if (contents.stopped) {
    self.postMessage({ kind: 'warning', message: `stream read up to a damaged record: ${contents.stopped}` });
  }
  return contents.replay;
}

/** The simulation version of a replay this package's core does not
 * simulate, or null (the current version, a stream, or a header too
 * damaged to read: decoding then says what is wrong). */
function olderVersion(bytes) {
  if (sk.fileKind(bytes) !== 'replay') return null;
  let version;
  try {
    version = sk.replaySimulationVersion(bytes);
  } catch {
    return null;
  }
  return version === sk.simulationVersion() ? null : version;
}

/** Samples a replay of `steps` steps keeps: every `stride`-th step and the
 * last, with the stride the smallest that fits the sample budget. */
function sampledSteps(steps, stride) {
  return Math.floor(steps / stride) + 1 + (steps % stride === 0 ? 0 : 1);
}

/**
 * The road to draw for a recording (a Replay, or a live StreamFollower:
 * both tell `groundTrack` and `groundDescription`) that names no track
 * (metadata `track`),
 * and what to tell the user: the built-in track whose surface it was
 * recorded on, found by the ground's fingerprint (drawn, but no lap is
 * timed: laps need the `track` metadata in every tool), or nothing on the
 * plane, with why, or the game's own ground the replay carries (section
 * 11) or the ground file `groundFile` opened with it gave. (A replay on a game's own ground that does not carry it does not
 * get here: it cannot be re-simulated without that ground, and the player
 * says so.)
 */
function groundRoad(recording, metadata, track, carried, groundFile = null) {
  if (track || metadata.track) return { road: null, notice: null };
  if (carried) {
    const source = groundFile ? `is the ground file ${groundFile} opened with it` : 'came with it';
    return {
      road: null,
      notice: `the replay names no track (metadata "track"), so no laps are timed; the ground it was recorded on ${source} (a ${carried.description}), drawn from it`,
    };
  }
  const name = recording.groundTrack;
  if (name) {
    return {
      road: builtinTrack(name)?.geometry ?? null,
      notice: `the replay names no track (metadata "track"), so no laps are timed; it was recorded on ${name}'s surface, drawn from its ground`,
    };
  }
  const ground = recording.groundDescription;
  return {
    road: null,
    notice: `the replay names no track (metadata "track") and was recorded on ${ground}: the cars are drawn on open ground, without a road`,
  };
}

function playReplay(replay, name, budget, groundFile = null, scene = { meshes: null, notice: null }) {
  playing = replay;
  const world = sk.createReplayWorld(replay);
  const cars = replay.carCount;
  const definitions = Array.from({ length: cars }, (_, k) => world.definition(k));
  const metadata = replay.metadata();
  const track = trackOf(replay);
  // A game's own ground the replay carries, as triangles to draw.
  const ground = replay.carriedGround();
  const { road, notice } = groundRoad(replay, metadata, track, ground, groundFile);
  const channels = sk.channelNames();
  const steps = replay.stepCount;
  const perSample = sampleBytes(cars, channels.length);
  const stride = Math.max(1, Math.ceil(((steps + 1) * perSample) / budget));
  const samples = sampledSteps(steps, stride);
  const stepTimes = replay.stepTimes();
  const player = new sk.ReplayPlayer(world, replay);
  self.postMessage({
    kind: 'meta',
    source: 'replay',
    name,
    cars: carsOf(definitions),
    steps,
    samples,
    stride,
    duration: replay.duration,
    metadata,
    track: track?.geometry ?? null,
    road,
    ground,
    sceneMeshes: scene.meshes,
    notice: [notice, scene.notice].filter(Boolean).join('; ') || null,
    channels,
    units: sk.channelUnits(),
    groups: sk.channelGroups(),
    interpolations: sk.channelInterpolations(),
    simulationVersion: replay.simulationVersion,
  });

  // Laps are timed on every step, sampled or not, so they are the laps
  // every other skidpad tool reports for this replay.
  const laps = track ? new RaceLaps(sk, track.view, player.poses()) : null;
  let batch = newBatch(0, Math.min(BATCH, samples), cars, channels.length, !!track);
  let desyncs = 0;
  // Events seen on steps that are not sampled wait for the next sample's
  // batch.
  let events = [];
  // Overtakes, slides, lap records and hard contacts, by the replay
  // crate's rules (`find_highlights` finds the same).
  const highlights = new sk.HighlightFinder();
  const record = (step) => {
    if (batch.filled === batch.count) {
      post(batch);
      batch = newBatch(batch.from + batch.count, Math.min(BATCH, samples - batch.from - batch.count), cars, channels.length, !!track);
    }
    const i = batch.filled;
    const poses = player.poses();
    const time = stepTimes[step];
    batch.steps[i] = step;
    batch.times[i] = time;
    batch.poses.set(poses, i * cars * POSE);
    batch.telemetry.set(player.telemetryAll(), i * cars * channels.length);
    if (laps) laps.sample(poses, batch, i);
    batch.events.push(...events);
    events = [];
    batch.filled += 1;
  };

  // Where the worker's time goes: re-simulating, and reading the tables
  // out of the wasm world (reported with `done`).
  let simulateMs = 0;
  let readMs = 0;
  let clock = performance.now();
  const lap = () => {
    const now = performance.now();
    const elapsed = now - clock;
    clock = now;
    return elapsed;
  };
  const resetsBefore = resetCursor(replay.resets(), stepTimes, laps);
  record(0);
  let step = 0;
  for (;;) {
    readMs += lap();
    const more = player.advance();
    simulateMs += lap();
    if (!more) break;
    step += 1;
    events.push(...resetsBefore(step));
    if (laps) events.push(...laps.observe(step, stepTimes[step], player.poses()));
    events.push(...highlightEvents(laps ? highlights.observe(step, player, laps.timing) : highlights.observeUntimed(step, player), events, stepTimes[step]));
    if (player.desyncs > desyncs) {
      desyncs = player.desyncs;
      // Only the first report is kept by the player; later desyncs name no cars.
      const report = player.firstDesync;
      events.push({ kind: 'desync', step, time: stepTimes[step], cars: report?.step === step ? report.cars : [] });
    }
    if (step % stride === 0 || step === steps) record(step);
  }
  post(batch);
  self.postMessage({
    kind: 'done',
    finalHash: player.worldHash(),
    desyncs: player.desyncs,
    firstDesync: player.firstDesync,
    simulateMs,
    readMs: readMs + lap(),
  });
}

/** The page's events for the highlights of a step: a lap record marks
 * the lap event among `events` it was (`record: true`); the rest become
 * events of their own. */
function highlightEvents(found, events, time) {
  const out = [];
  for (const h of found) {
    if (h.kind === 'record') {
      const lap = events.findLast((e) => e.kind === 'lap' && e.car === h.cars[0] && e.step === h.step);
      if (lap) lap.record = true;
    } else {
      out.push({ ...h, time });
    }
  }
  return out;
}

/** Plays a replay of an older simulation version in that version's
 * archived core (loaded on demand, only that one): poses, laps, resets
 * and desyncs as for a current replay (the resets read from the file by
 * this build, since the archived ABI has none); the archived ABI has no
 * telemetry or contacts, so neither is drawn. */
async function playArchived(bytes, version, name, budget) {
  const core = await loadArchivedCore(sk, version);
  const header = core.open(bytes);
  const cars = header.cars;
  const metadata = Object.fromEntries(header.metadata);
  const track = builtinTrack(metadata.track);
  const steps = header.steps;
  const stride = Math.max(1, Math.ceil(((steps + 1) * sampleBytes(cars, 0)) / budget));
  const samples = sampledSteps(steps, stride);
  const stepTimes = new Float64Array(steps + 1);
  let step = 0;
  for (const [count, dt] of header.dt_runs) {
    for (let k = 0; k < count && step < steps; k++, step++) stepTimes[step + 1] = stepTimes[step] + dt;
  }
  self.postMessage({
    kind: 'meta',
    source: 'replay',
    name,
    cars: carsOf(header.definitions),
    steps,
    samples,
    stride,
    duration: header.duration,
    metadata,
    track: track?.geometry ?? null,
    channels: [],
    units: [],
    noChannels: `simulation v${version}'s archived core replays the cars' poses only: there are no telemetry channels to chart (a replay of this version, v${sk.simulationVersion()}, charts every channel)`,
    simulationVersion: version,
    core: 'archived',
    coreBytes: core.moduleBytes,
  });
  let poses = core.poseValues(cars);
  const laps = track ? new RaceLaps(sk, track.view, poses) : null;
  let batch = newBatch(0, Math.min(BATCH, samples), cars, 0, !!track);
  let events = [];
  const record = (at) => {
    if (batch.filled === batch.count) {
      post(batch);
      batch = newBatch(batch.from + batch.count, Math.min(BATCH, samples - batch.from - batch.count), cars, 0, !!track);
    }
    const i = batch.filled;
    batch.steps[i] = at;
    batch.times[i] = stepTimes[at];
    batch.poses.set(poses, i * cars * POSE);
    if (laps) laps.sample(poses, batch, i);
    batch.events.push(...events);
    events = [];
    batch.filled += 1;
  };
  // The archived core's interface has no resets; the file's own resets
  // section, read by this build whatever the version, has them.
  const resetsBefore = resetCursor(sk.resetsOfReplayFile(bytes), stepTimes, laps);
  let simulateMs = 0;
  let clock = performance.now();
  record(0);
  let desyncs = 0;
  for (;;) {
    const played = core.advance();
    if (!played.more) break;
    step = played.step;
    poses = core.poseValues(cars);
    events.push(...resetsBefore(step));
    if (laps) events.push(...laps.observe(step, stepTimes[step], poses));
    if (played.desyncs > desyncs) {
      desyncs = played.desyncs;
      events.push({ kind: 'desync', step, time: stepTimes[step], cars: [] });
    }
    if (step % stride === 0 || step === steps) record(step);
  }
  simulateMs += performance.now() - clock;
  clock = performance.now();
  post(batch);
  const state = core.state();
  core.close();
  self.postMessage({
    kind: 'done',
    finalHash: state.world_hash,
    desyncs: state.desyncs,
    firstDesync: state.first_desync,
    simulateMs,
    readMs: performance.now() - clock,
  });
}

/**
 * The game's resets (`Replay.resets()` or `resetsOfReplayFile`, in step
 * order) as events, step by step: the returned function gives those made
 * before step `step - 1` was played, i.e. played in the advance to `step`
 * (a reset before step s is played in the advance to s + 1), and voids
 * each car's lap in progress in `laps` as the race layer does everywhere
 * else.
 */
function resetCursor(resets, stepTimes, laps) {
  let next = 0;
  return (step) => {
    const due = [];
    for (; next < resets.length && resets[next].step < step; next++) {
      const r = resets[next];
      laps?.timing.noteReset(r.car);
      due.push({ kind: 'reset', step: r.step, time: stepTimes[r.step], car: r.car, pose: { x: r.x, y: r.y, yaw: r.yaw, speed: r.speed } });
    }
    return due;
  };
}

/** Bytes a sample of `cars` cars takes in the page: step and time, then
 * per car a pose (f64 each), a track distance, a race progress, a place
 * in the order and a gap (f64 each), a cut flag and the telemetry (f32
 * per channel). */
function sampleBytes(cars, channels) {
  return 16 + cars * (POSE * 8 + 32 + 1 + 4 * channels);
}

/** Room for `count` samples from sample index `from`. */
function newBatch(from, count, cars, channelCount, withDistances) {
  return {
    kind: 'samples',
    from,
    count,
    filled: 0,
    steps: new Float64Array(count),
    times: new Float64Array(count),
    poses: new Float64Array(count * cars * POSE),
    distances: withDistances ? new Float64Array(count * cars) : null,
    progress: withDistances ? new Float64Array(count * cars) : null,
    order: withDistances ? new Float64Array(count * cars) : null,
    gaps: withDistances ? new Float64Array(count * cars) : null,
    telemetry: new Float32Array(count * cars * channelCount),
    events: [],
  };
}

function post(batch) {
  const transfer = [batch.steps.buffer, batch.times.buffer, batch.poses.buffer, batch.telemetry.buffer];
  if (batch.distances) transfer.push(batch.distances.buffer, batch.progress.buffer, batch.order.buffer, batch.gaps.buffer);
  self.postMessage(batch, transfer);
}

/** Follows a spectator race: joins at its latest keyframe and posts every
 * step of every chunk as it arrives. Live races carry no telemetry. */
async function followLive(url) {
  let laps = null;
  let cars = 0;
  let announced = false;
  // Time of the last sample. A late joiner does not know the step lengths
  // before its first chunk and takes them equal to the first one it sees.
  let time = null;
  let sampled = 0;
  const announce = (follower) => {
    cars = follower.carCount;
    const definitions = Array.from({ length: cars }, (_, k) => follower.definition(k));
    const metadata = follower.metadata();
    const track = trackOf(follower);
    // A game's own ground the stream's header carries, drawn as a
    // replay's is; a built-in surface without a track name gets its road.
    const ground = follower.carriedGround();
    const { road, notice } = groundRoad(follower, metadata, track, ground);
    // The first poses seen are the start: a late joiner times every car
    // from its first crossing of the line.
    laps = track ? { view: track.view, timing: null } : null;
    self.postMessage({
      kind: 'meta',
      source: 'live',
      name: url,
      cars: carsOf(definitions),
      steps: null,
      samples: null,
      stride: 1,
      duration: null,
      metadata,
      track: track?.geometry ?? null,
      road,
      ground,
      notice,
      channels: [],
      units: [],
      noChannels: 'a live race is followed by its cars\' poses only: open its recording (.sks or .skr) to chart its telemetry',
      simulationVersion: sk.simulationVersion(),
    });
    announced = true;
  };
  const playChunk = (follower, bytes) => {
    if (!announced) announce(follower);
    const values = follower.pushChunkPoses(bytes);
    if (follower.carCount !== cars) {
      // Cars joined the race (the chunk's piece announced them): the page
      // takes them before this chunk's samples, which hold them.
      cars = follower.carCount;
      const definitions = Array.from({ length: cars }, (_, k) => follower.definition(k));
      self.postMessage({ kind: 'cars', cars: carsOf(definitions) });
    }
    const width = 1 + cars * POSE;
    const count = values.length / width;
    // The chunk held steps follower.step - count + 1 ..= follower.step.
    const firstStep = follower.step - count + 1;
    const batch = newBatch(sampled, count, cars, 0, !!laps);
    batch.filled = count;
    sampled += count;
    for (let i = 0; i < count; i++) {
      const dt = values[i * width];
      time = time === null ? (firstStep + i) * dt : time + dt;
      batch.steps[i] = firstStep + i;
      batch.times[i] = time;
      const poses = values.subarray(i * width + 1, (i + 1) * width);
      batch.poses.set(poses, i * cars * POSE);
      if (laps) {
        if (laps.timing === null) laps.timing = new RaceLaps(sk, laps.view, poses);
        else batch.events.push(...laps.timing.observe(firstStep + i, batch.times[i], poses));
        laps.timing.sample(poses, batch, i);
      }
    }
    post(batch);
  };
  const race = await spectate(sk, url, { playChunk });
  const follower = await race.done;
  self.postMessage({ kind: 'done', finalHash: follower.worldHash() ?? null, desyncs: 0, firstDesync: null });
}
