//! Recording replays for the tests: AI races with level-of-detail and
//! surface changes, and a game with a lap timer of its own.

#![allow(dead_code)] // Each test binary uses part of this file.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use skidpad_core::CarId;
use skidpad_core::{
    InitialPose, Lod, LodSetting, SurfaceId, Track, Wheel, World, WorldConfig, preset,
};
use skidpad_replay::{
    RecorderOptions, Replay, ReplayHooks, ReplayRecorder, StreamRecorder, SyncPolicy,
};

pub const DT: f64 = 1.0 / 60.0;

/// On `track`, `back` metres before its line, facing along it, at `speed`.
pub fn behind_the_line(track: &Track, back: f64, speed: f64) -> InitialPose {
    let (p, d) = track.point_at(track.length() - back);
    InitialPose {
        x: p.x,
        y: p.y,
        yaw: d.y.atan2(d.x),
        speed,
    }
}

/// `cars` AI cars of alternating presets on the built-in track.
pub fn race_world(cars: usize) -> World {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..cars {
        let id = world
            .add_car(
                &preset(names[k % 2]).unwrap(),
                behind_the_line(&track, 12.0 * k as f64, 10.0),
            )
            .unwrap();
        world.set_driver(id, Some(track.clone())).unwrap();
    }
    world
}

/// The scripted changes a recording goes through: LOD levels and rates,
/// whole-car and per-wheel surfaces.
pub fn script(world: &mut World, step: u64) {
    let k = (step / 300 % world.car_count() as u64) as usize;
    let car = world.car_ids().nth(k).unwrap();
    let r = match step % 300 {
        40 => world.set_lod(car, LodSetting::new(Lod::SingleTrack)),
        90 => world.set_wheel_surface(car, Wheel::FrontRight, SurfaceId::GRASS),
        120 => world.set_lod(car, LodSetting::with_rate(Lod::Full, 600.0)),
        150 => world.set_surface(car, SurfaceId::WET_ASPHALT),
        200 => world.set_lod(car, LodSetting::new(Lod::Frozen)),
        230 => world.set_lod(car, LodSetting::new(Lod::Full)),
        260 => world.set_surface(car, SurfaceId::DRY_ASPHALT),
        _ => Ok(()),
    };
    r.unwrap();
}

/// Records `steps` steps of a `cars`-car race with the script; returns the
/// replay, the recording world's hash after every step, and the world.
pub fn record_race(cars: usize, steps: u64, keyframe_every: u32) -> (Replay, Vec<[u8; 32]>, World) {
    let mut world = race_world(cars);
    let options = RecorderOptions {
        keyframe_every,
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    let mut hashes = vec![world.world_hash()];
    for step in 0..steps {
        script(&mut world, step);
        recorder.step(&mut world, DT).unwrap();
        hashes.push(world.world_hash());
    }
    let replay = recorder.finish(&world).unwrap();
    (replay, hashes, world)
}

/// A game's own state: the steps at which car 0 crossed the line x = 100
/// (either way), as a lap timer's checkpoint log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LapTimer {
    pub crossings: Vec<u64>,
    pub last_x: Option<f64>,
}

impl LapTimer {
    /// Game logic, run before each step with the world as the previous
    /// step left it.
    pub fn observe(&mut self, step: u64, world: &World) {
        let first = world.car_ids().next().unwrap();
        let x = world.pose(first).unwrap().position.x;
        if let Some(last) = self.last_x
            && (last < 100.0) != (x < 100.0)
        {
            self.crossings.push(step);
        }
        self.last_x = Some(x);
    }

    pub fn save(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.last_x.unwrap_or(f64::NAN).to_le_bytes());
        for c in &self.crossings {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out
    }

    pub fn load(bytes: &[u8]) -> LapTimer {
        let x = f64::from_le_bytes(bytes[..8].try_into().unwrap());
        LapTimer {
            last_x: (!x.is_nan()).then_some(x),
            crossings: bytes[8..]
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        }
    }
}

/// The lap-timer game as playback hooks.
#[derive(Default)]
pub struct LapGame {
    pub timer: LapTimer,
    pub restores: Vec<u64>,
}

impl ReplayHooks for LapGame {
    fn before_step(&mut self, step: u64, world: &mut World) {
        self.timer.observe(step, world);
    }
    fn on_restore(&mut self, step: u64, state: &[u8]) {
        self.timer = LapTimer::load(state);
        self.restores.push(step);
    }
    fn save_state(&mut self, _step: u64) -> Option<Vec<u8>> {
        Some(self.timer.save())
    }
}

/// Records a lap-timer game: 3 cars, `steps` steps; the timer's state goes
/// into every keyframe. Returns the replay and the timer at the end.
pub fn record_lap_game(steps: u64, keyframe_every: u32) -> (Replay, LapTimer) {
    let mut world = race_world(3);
    let timer = Rc::new(RefCell::new(LapTimer::default()));
    let saved = timer.clone();
    let options = RecorderOptions {
        keyframe_every,
        keyframe_state: Some(Box::new(move |_| saved.borrow().save())),
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for step in 0..steps {
        timer.borrow_mut().observe(step, &world);
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    let end = timer.borrow().clone();
    (replay, end)
}

/// Recorder options of the keyframed races: `keyframe_every` and the
/// track's name in the metadata.
pub fn brandwood_options(keyframe_every: u32) -> RecorderOptions<'static> {
    RecorderOptions {
        keyframe_every,
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    }
}

/// `bytes` with the checksum made right again after an edit, so that the
/// parser behind the checksum is what an edit exercises.
pub fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 32;
    let sum = blake3::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(sum.as_bytes());
    bytes
}

/// A 4-car scripted race of `steps` steps, keyframed every
/// `keyframe_every`, recorded as a replay and as a stream at once, with
/// the game's `events` (removals, resets) made before each step and after
/// the last; also the world hash at every step, after that step's events.
pub fn record_with_events(
    steps: u64,
    keyframe_every: u32,
    mut events: impl FnMut(&mut World, u64, &[CarId]),
) -> (Replay, Vec<u8>, Vec<[u8; 32]>) {
    let mut world = race_world(4);
    let ids: Vec<_> = world.car_ids().collect();
    let options = || brandwood_options(keyframe_every);
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    let mut stream =
        StreamRecorder::new(&world, options(), Vec::new(), SyncPolicy::EveryChunk).unwrap();
    let mut hashes = Vec::new();
    for step in 0..steps {
        events(&mut world, step, &ids);
        hashes.push(world.world_hash());
        script(&mut world, step);
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
        stream.after_step(&world).unwrap();
    }
    events(&mut world, steps, &ids);
    hashes.push(world.world_hash());
    (
        recorder.finish(&world).unwrap(),
        stream.finish(&world).unwrap(),
        hashes,
    )
}

/// (step, cars held) of every keyframe of `replay`.
pub fn keyframe_cars(replay: &Replay) -> Vec<(u64, usize)> {
    replay
        .keyframes
        .iter()
        .map(|k| (k.step, k.cars.len()))
        .collect()
}

/// Each car's recorded streams (inputs, levels of detail, surfaces) cover
/// `steps[i]` steps.
pub fn assert_streams_cover(replay: &Replay, steps: &[u64]) {
    assert_eq!(replay.cars.len(), steps.len());
    for (track, &n) in replay.cars.iter().zip(steps) {
        assert_eq!(track.inputs.len() as u64, n);
        assert_eq!(track.lod.len(), n);
        assert!(track.surfaces.iter().all(|s| s.len() == n));
    }
}
