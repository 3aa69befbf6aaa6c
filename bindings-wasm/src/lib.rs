//! skidpad for JavaScript: the whole SDK (SPEC §7) through wasm-bindgen.
//!
//! The API mirrors the Rust crates in camelCase: `World`, `ReplayRecorder`,
//! `ReplayPlayer` with JS hooks, `createReplayWorld`, `encodeReplay` /
//! `decodeReplay`, `fileKind`, `verifyReplay`, `GhostRecorder`, `GhostPlayer`,
//! `ghostQuaternion`, `sliceGhost`, `sliceGhostFrames`, `encodeGhost` /
//! `decodeGhost`, `readStream` / `encodeStream` / `splitStream` and
//! `StreamFollower` (live streams), `TrackView` and `LapReference` (for
//! viewers), `RaceTiming` and `gridPose` (the race layer: lap timing,
//! standings, the grid), the input layer (`KeyboardControls`,
//! `DeviceProfile`, `AxisFinder`, `GearSelector`, `InputMixer`,
//! `ForceFeedback`, `carInputFrom`), telemetry exports (`telemetryCsv`,
//! `telemetryMotecCsv`, `telemetryLd`), `simulationVersion` and
//! `coreVersion`.
//!
//! Nothing here simulates: every call validates its JS arguments and hands
//! them to the Rust crates, so a replay recorded in a browser has the same
//! bits as one recorded natively. Errors are thrown, never trapped: bad
//! arguments throw `RangeError`, everything else `Error` (see `error.rs`).
//! `cargo xtask wasm` (`xtask/src/wasm.rs`) turns this crate into the npm
//! package.

#![forbid(unsafe_code)]

mod args;
mod catalog;
mod error;
mod fixtures;
mod ghost;
mod ground;
mod highlights;
mod hooks;
mod input;
mod limits;
mod netplay;
mod player;
mod race;
mod race_client;
mod read;
mod replay;
mod replay_file;
mod stream;
mod take_over;
mod telemetry;
mod track;
mod track_scene;
mod verify;
mod world;

use wasm_bindgen::prelude::*;

pub use ghost::{Ghost, GhostPlayer, GhostRecorder};
pub use highlights::HighlightFinder;
pub use input::{
    AxisFinder, DeviceProfile, ForceFeedback, GearSelector, InputMixer, KeyboardControls,
    car_input_from,
};
pub use netplay::{NetClient, NetInterpolator, NetSchema, RaceMap};
pub use player::ReplayPlayer;
pub use race::{RaceTiming, grid_pose};
pub use race_client::RaceClient;
pub use replay::{Replay, ReplayRecorder};
pub use stream::StreamFollower;
pub use take_over::{TakeOver, sector_starts};
pub use track::{LapReference, SplitTracker, TrackView};
pub use track_scene::TrackScene;
pub use world::World;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** What a file holds, by its first bytes (`fileKind`). */
export type FileKind = 'replay' | 'stream' | 'ghost' | 'ground' | 'empty' | 'unknown';
/** Where a new car starts; every field defaults to 0. */
export interface CarPoseOptions { x?: number; y?: number; yaw?: number; speed?: number }
/** A car's controls (SPEC §4.1); absent fields are 0. */
export interface CarInput {
  steer?: number; throttle?: number; brake?: number;
  handbrake?: number; clutch?: number; gear?: number;
}
/** A car's pose: centre of mass (m), z-y-x angles (rad), steer (rad), speed (m/s). */
export interface CarPose {
  x: number; y: number; z: number; yaw: number; pitch: number; roll: number;
  steer: number; speed: number;
}
/** A decoded snapshot frame: blocks by key name (`NetSchema.decodeFrame`). */
export interface NetFrame {
  tick: number; serverTimeMs: number;
  blocks: Record<string, Array<Record<string, number> | { id: number; row: Record<string, number> | null } | { index: number; row: Record<string, number> }>>;
}
/** A prediction that differed from the server's state, field by field. */
export interface NetMisprediction { tick: number; fields: Array<{ field: string; server: number; predicted: number }> }
/** How the prediction fares (`NetClient.stats`). */
export interface NetStats { checked: number; mispredicted: number; lateCorrections: number; resetCorrections: number; largestCorrection: number }
/** The confirmed race differed from the server's (`RaceClient.onFrame`):
 * the seats whose hash differed, the player's own car's fields. */
export interface NetDesync { tick: number; seats: number[]; fields: Array<{ field: string; server: number; client: number }> }
/** How the whole-race prediction fares (`RaceClient.stats`), distances in m. */
export interface NetRaceStats {
  frames: number; confirmedTicks: number; wrongTicks: number; rollbacks: number; resimulatedTicks: number;
  lateFrames: number; resets: number; desyncs: number; corrections: number; correctionP99: number; drawnCorrectionP99: number; largestCorrection: number;
}
/** A hot entity as drawn (`NetInterpolator.sample`). */
export interface NetEntity { key: string; id: number; row: Record<string, number> }
/** A ground a replay carries, as triangles to draw (`Replay.carriedGround`):
 * xyz per vertex, three vertex indices per triangle, a surface id per
 * triangle or null. */
export interface CarriedGround { positions: Float32Array; indices: Uint32Array; surfaces: Uint8Array | null; description: string }
/** What `skidpad track check` reports of a track (`TrackView.report`,
 * `TrackScene.report`): lengths and heights in m; `tightest` is the
 * radius (null when straight) and where it is; `scene` only for a scene. */
export interface TrackReport {
  name: string; fingerprint: string; control_points: number; length: number;
  width: [number, number]; tightest: [number | null, number]; elevation: [number, number];
  sectors: number[]; ground: [number, number]; warnings: string[];
  scene?: { nodes: number; visual_primitives: number; visual_triangles: number;
    ground_triangles: Record<string, number>; dropped_triangles: number; ignored_primitives: number };
}
/** A glTF scene's mesh as drawn (`TrackScene.mesh`), in skidpad's z-up
 * axes: xyz per vertex, three indices per triangle, linear RGBA colour,
 * and the surface id it is ground of (null: only drawn). */
export interface SceneMesh {
  node: string; material: string; colour: Float32Array; surface: number | null;
  positions: Float32Array; indices: Uint32Array;
}
/** A heightfield ground: heights row-major (x fastest), optional surface id per cell. */
export interface HeightfieldOptions {
  x0: number; y0: number; spacing: number; columns: number; rows: number;
  heights: Float64Array; surfaces?: Uint8Array;
}
/** A contact of the last step: two cars, or a car's body and the ground (second null). */
export interface Contact {
  first: number; second: number | null; point: [number, number, number];
  normal: [number, number, number]; depth: number; impulse: number;
}
/** A ghost pose, the same fields as CarPose in f32. */
export type GhostPose = CarPose;
/** Game logic during playback and verification. */
export interface ReplayHooks {
  beforeStep?: (step: number, world: World) => void;
  onRestore?: (step: number, state: Uint8Array) => void;
  keyframeState?: (step: number) => Uint8Array | null;
}
export interface ReplayRecorderOptions {
  cars?: number[]; keyframeEvery?: number; embedDefinitions?: boolean;
  embedGhosts?: boolean; carryGround?: boolean; metadata?: Record<string, string>;
  keyframeState?: (step: number) => Uint8Array; reserveSteps?: number;
  /** How many steps back `rewind` may go (default 600; 0: no rewinds). */
  rewindWindow?: number;
  /** The race's track as a definition's JSON (`TrackView.definitionJson()`):
   * the replay names it, and carries a game's own one. */
  trackDefinition?: string;
  /** False names a game's own track by fingerprint only (default true:
   * carried); a player then needs `Replay.withTrack`. */
  carryTrack?: boolean;
}
export interface DesyncReport {
  step: number; cars: number[];
  fields: { car: number; field: string; recorded: number; simulated: number }[];
}
/** Which rows a telemetry export writes: every `stride`-th step (default 1),
 * only laps `laps` (`"2-4"` or `"3"`), and what the log calls the replay. */
export interface TelemetryExportOptions { stride?: number; laps?: string; fileName?: string }
/** What the cars the player does not drive do after a take-over, and the
 * work budget the source replay is checked against first. */
export interface TakeOverOptions { followers?: "recorded" | "ai"; limits?: Limits }
/** A step of a replay just before its car entered sector `sector` (from
 * 1; 1 is the line) of lap `lap`: where "start at a sector" takes it over. */
export interface SectorStart { lap: number; sector: number; step: number; time: number }
/** A highlight as `HighlightFinder.observe` finds it: cars by index
 * (`'ground'` for the ground), with the contact's impulse (N·s), the
 * slide's angle (rad) or the record lap's time (s). */
export interface Highlight {
  kind: 'overtake' | 'slide' | 'record' | 'contact'; step: number;
  cars: (number | 'ground')[]; impulse?: number; angle?: number; time?: number;
}
/** A boundary a car passed racing a ghost lap (`SplitTracker.update`):
 * sectors from 0 in lap order, `line` at the lap line, the car's lap time
 * there and its time minus the ghost's (null where the ghost did not reach). */
export interface Split { checkpoint: number; line: boolean; time: number; delta: number | null }
/** Rewinds to one step of a recording: how many, and what they abandoned. */
export interface RewindRecord { at: number; count: number; steps: number; seconds: number }
/** A take-over's recorder: metadata added to its own, and the keyframe
 * interval and rewind window of `ReplayRecorderOptions`. */
export interface TakeOverRecorderOptions {
  metadata?: Record<string, string>; keyframeEvery?: number; rewindWindow?: number;
}
/** Where a taken-over run began: the source's final world hash (hex), the
 * source's step and the index of the car the player took. */
export interface TakeOverOrigin { source: string; step: number; car: number }
/** Work budgets for replays from strangers; absent fields keep the defaults. */
export interface Limits {
  maxCars?: number; maxSteps?: number; maxSubstepsPerStep?: number;
  maxCarSubsteps?: number; maxKeyframeStateBytes?: number;
  maxMetadataBytes?: number; maxDecodedBytes?: number;
}
/** What readStream found: every whole chunk joined into one replay. */
export interface StreamContents {
  replay: Replay; chunks: number; complete: boolean; droppedBytes: number;
  stopped: string | null;
}
/** A whole piece of a stream as written ('arrival': a car that joined the race). */
export interface StreamPiece { kind: 'header' | 'arrival' | 'chunk' | 'end'; bytes: Uint8Array }
/** A lap the race layer timed (lines at the track's distance 0). */
export interface RaceLap {
  kind: 'lap'; car: number; lap: number; start: number; end: number; time: number;
  valid: boolean; standing: boolean; faults: string[];
  /** Each sector's time, s (the track's sectors); empty when a boundary was missed. */
  sectors: Float64Array;
}
/** A game's reset of a car (`Replay.resets`): put down at the pose before step `step`. */
export interface CarResetEvent { car: number; step: number; x: number; y: number; yaw: number; speed: number }
/** What RaceTiming.observe saw happen. */
export type RaceEvent = RaceLap
  | { kind: 'finished'; car: number; time: number }
  | { kind: 'retired'; car: number; time: number };
/** One line of the standings. */
export interface RaceStanding {
  position: number; car: number; laps: number; progress: number; gap: number | null;
  lastLap: number | null; bestLap: number | null; status: 'running' | 'finished' | 'retired';
}
/** Controls before gear selection (the input layer's `Controls`). */
export interface Controls {
  steer: number; throttle: number; brake: number; handbrake: number; clutch: number;
}
/** Keys held in a frame; absent keys are up. */
export interface Keys {
  left?: boolean; right?: boolean; throttle?: boolean; brake?: boolean;
  handbrake?: boolean; clutch?: boolean;
}
export interface KeyboardTuning {
  steerRate?: number; centringRate?: number; authoritySpeed?: number; minAuthority?: number;
  throttleRise?: number; throttleFall?: number; brakeRise?: number; brakeFall?: number;
  speedSensitiveRates?: boolean;
}
export type GearMode = 'automatic' | 'sequential' | 'h_pattern';
/** Shift buttons held: gate -1 reverse, a gear, or null for neutral. */
export interface ShiftButtons { up?: boolean; down?: boolean; gate?: number | null }
export interface DeviceFrame { controls: Partial<Controls>; shift?: ShiftButtons }
export interface MixedInput { device: number | null; controls: Controls; shift: ShiftButtons }
export interface FoundAxis {
  axis: number; rest: number; low: number; high: number;
  centred: { left: number; rest: number; right: number } | null;
  pedal: { rest: number; pressed: number } | null;
}
export interface ForceFeedbackSettings {
  devicePeakTorque?: number; gain?: number; smoothing?: number; maxOutput?: number;
  maxRate?: number; runawaySpeed?: number; stallTimeout?: number;
}
export interface FeedbackFrame {
  now: number; lastUpdate: number; torque: number; wheelSpeed: number; visible?: boolean;
}
export interface FeedbackCommand { output: number; silenced: 'hidden' | 'stalled' | 'runaway' | null }
export interface VerifyReport {
  valid: boolean; simulationVersion: number; recordedBy: string; steps: number;
  duration: number; keyframes: number; desyncs: number;
  firstDesync: DesyncReport | null; finalHash: string;
  /** What the player's rewinds took back (all 0 for a run lived straight through). */
  rewinds: { count: number; steps: number; seconds: number };
}
"#;

/// The simulation version: replays and ghosts recorded with another one
/// are refused.
#[wasm_bindgen(js_name = simulationVersion)]
#[must_use]
pub fn simulation_version() -> u32 {
    skidpad_core::SIMULATION_VERSION
}

/// The core crate's version.
#[wasm_bindgen(js_name = coreVersion)]
#[must_use]
pub fn core_version() -> String {
    skidpad_core::CORE_VERSION.to_owned()
}
