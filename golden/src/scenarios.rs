//! The fixed scenarios behind the golden files. Each one is a function of
//! nothing: same core, same bits. Game logic and ghost extraction are
//! written once here and run both while recording and while checking.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use skidpad_core::race::AiField;
use skidpad_core::{
    CarDefinition, CarId, GroundSlope, InitialPose, Lod, LodSetting, SurfaceId, Track, Wheel,
    World, WorldConfig, preset,
};
use skidpad_ghost::{Ghost, LapCutter};

use crate::{jeep, tripped};
use skidpad_replay::{RecorderOptions, Replay, ReplayHooks, ReplayRecorder};

/// Host step of every scenario, s.
pub const DT: f64 = 1.0 / 60.0;

/// A golden scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// One AI sports car, one flat lap from a standing start.
    FlatLap,
    /// Six AI cars of both presets with level-of-detail and surface changes.
    MixedField,
    /// Three AI cars on a hill the game applies as ground slopes each step,
    /// with a checkpoint log kept in the keyframes' game state.
    GameLogic,
    /// Two AI cars for ten minutes.
    LongRun,
    /// Four AI cars; the game removes one in the middle of a keyframe
    /// interval and another right after a keyframe, and the race goes on.
    Retirements,
    /// Four AI cars; the game resets one in the middle of a keyframe
    /// interval (put 150 m back up the road, at rest), another right after
    /// a keyframe (moved 3 m sideways at its own speed), and the first
    /// car twice (since simulation version 11).
    Resets,
    /// Twenty AI cars racing each other (racecraft, skills from seed 1,
    /// a stuck car reset after 10 s) from the grid on Hillcrest's own
    /// surface for 45 s: the first corners in traffic, car-to-car and
    /// barrier contacts (since simulation version 11).
    Traffic,
    /// Two hatchbacks sliding sideways on a game's own ground, which the
    /// replay carries: one into a 0.2 m kerb, which trips it over, one
    /// into a 1.2 m wall, which pushes it back upright (since simulation
    /// version 12).
    Tripped,
    /// Two AI hatchbacks on real tire files' imports (Project Chrono's SUV
    /// and HMMWV tires: shifted, asymmetric and load-dependent curves)
    /// from 10 m/s for 40 s, accelerating and braking for Brandwood's
    /// corners (since simulation version 13; from version 16 their slips
    /// combine by the files' Magic Formula weighting).
    RealTires,
    /// Two AI-driven 1997 Jeep Cherokees (the measured car's definition:
    /// torque converter, throttle body, light-throttle shift points,
    /// tires weighted by their file) from rest for 40 s, the second with
    /// compliance steer (added to version 16 by `--add-missing`).
    Jeep,
    /// Two AI hatchbacks with roll steer from 10 m/s for 30 s on
    /// Brandwood: one understeering at both axles, one oversteering at the
    /// rear (added to version 16 by `--add-missing`).
    RollSteer,
}

/// A recorded scenario: the replay and its named ghosts.
pub struct Recording {
    /// The replay.
    pub replay: Replay,
    /// (file name, ghost).
    pub ghosts: Vec<(String, Ghost)>,
}

impl Scenario {
    /// Every scenario, in file order.
    pub const ALL: [Scenario; 11] = [
        Scenario::FlatLap,
        Scenario::MixedField,
        Scenario::GameLogic,
        Scenario::LongRun,
        Scenario::Retirements,
        Scenario::Resets,
        Scenario::Traffic,
        Scenario::Tripped,
        Scenario::RealTires,
        Scenario::Jeep,
        Scenario::RollSteer,
    ];

    /// File stem.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Scenario::FlatLap => "flat_lap",
            Scenario::MixedField => "mixed_field",
            Scenario::GameLogic => "game_logic",
            Scenario::LongRun => "long_run",
            Scenario::Retirements => "retirements",
            Scenario::Resets => "resets",
            Scenario::Traffic => "traffic",
            Scenario::Tripped => "tripped",
            Scenario::RealTires => "real_tires",
            Scenario::Jeep => "jeep",
            Scenario::RollSteer => "roll_steer",
        }
    }

    /// The scenario recorded in a replay file named `file`.
    #[must_use]
    pub fn from_file(file: &str) -> Option<Scenario> {
        Scenario::ALL
            .into_iter()
            .find(|s| file.strip_suffix(".skr") == Some(s.name()))
    }

    fn steps(self) -> u64 {
        match self {
            Scenario::FlatLap => 60 * 80,
            Scenario::MixedField => 60 * 90,
            Scenario::GameLogic => 60 * 60,
            Scenario::LongRun => 60 * 60 * 10,
            Scenario::Retirements => 60 * 40,
            // Long enough for every car's first lap, voided or not.
            Scenario::Resets => 60 * 100,
            Scenario::Traffic => 60 * 45,
            // Long enough for the tripped car to land on its roof.
            Scenario::Tripped => 60 * 5,
            Scenario::RealTires | Scenario::Jeep => 60 * 40,
            Scenario::RollSteer => 60 * 30,
        }
    }

    /// The built-in track the scenario's cars drive (its `track`
    /// metadata), if any.
    #[must_use]
    pub fn track_name(self) -> Option<&'static str> {
        match self {
            Scenario::Traffic => Some(TRAFFIC_TRACK),
            Scenario::Tripped => None,
            _ => Some("brandwood"),
        }
    }

    /// The starting world.
    #[must_use]
    pub fn world(self) -> World {
        let track = track();
        let mut world = World::new(WorldConfig::default()).expect("default config");
        let (names, speed): (&[&str], f64) = match self {
            Scenario::FlatLap => (&["rwd_sports"], 0.0),
            Scenario::MixedField => (
                &[
                    "fwd_hatchback",
                    "rwd_sports",
                    "rwd_sports",
                    "fwd_hatchback",
                    "fwd_hatchback",
                    "rwd_sports",
                ],
                8.0,
            ),
            Scenario::GameLogic => (&["rwd_sports", "fwd_hatchback", "rwd_sports"], 12.0),
            Scenario::LongRun => (&["rwd_sports", "fwd_hatchback"], 10.0),
            Scenario::Retirements | Scenario::Resets => (
                &["rwd_sports", "fwd_hatchback", "rwd_sports", "fwd_hatchback"],
                10.0,
            ),
            Scenario::Traffic => return traffic_world(),
            Scenario::Tripped => return tripped::world(),
            Scenario::RealTires => return real_tires_world(),
            Scenario::Jeep => return jeep::world(&track),
            Scenario::RollSteer => return roll_steer_world(),
        };
        // Single file from the line, 10 m apart, headed along the track by
        // `race::pose_along` (libm's atan2: std's is the platform's and may
        // differ in the last bit elsewhere). Up to simulation version 10
        // these files were recorded with std's.
        for (k, name) in names.iter().enumerate() {
            let id = world
                .add_car(
                    &preset(name).expect("preset"),
                    skidpad_core::race::pose_along(
                        &track,
                        track.length() - 10.0 * k as f64,
                        0.0,
                        speed,
                    ),
                )
                .expect("car");
            world.set_driver(id, Some(track.clone())).expect("driver");
        }
        world
    }

    /// The scenario a replay names in its `scenario` metadata.
    #[must_use]
    pub fn of_replay(replay: &skidpad_replay::Replay) -> Option<Scenario> {
        let (_, name) = replay
            .header
            .metadata
            .iter()
            .find(|(key, _)| key == "scenario")?;
        Scenario::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The hooks that play back the game logic of the scenario `replay`
    /// names, if it has any: what a verifier of the golden replays hands
    /// the CLI's functions (`skidpad_cli::files::GameLogic`).
    #[must_use]
    pub fn game_logic(replay: &skidpad_replay::Replay) -> Option<Box<dyn ReplayHooks>> {
        match Scenario::of_replay(replay)? {
            Scenario::GameLogic => Some(Box::new(HillGame::default())),
            _ => None,
        }
    }

    /// The game logic for playback (and recording): hooks that re-apply it.
    #[must_use]
    pub fn hooks(self) -> Box<dyn ReplayHooks> {
        match self {
            Scenario::GameLogic => Box::new(HillGame::default()),
            _ => Box::new(skidpad_replay::NoHooks),
        }
    }

    /// Watches a run of `world` step by step and cuts the scenario's
    /// ghost laps (of its first car).
    #[must_use]
    pub fn ghost_cutter(self, world: &World) -> Option<LapGhostCutter> {
        let first = world.car_ids().next()?;
        let (file, lap) = match self {
            Scenario::FlatLap => ("flat_lap.skg", 1),
            Scenario::LongRun => ("long_run_lap3.skg", 3),
            _ => return None,
        };
        LapGhostCutter::new(file, world, first, lap)
    }

    /// Records the scenario.
    pub fn record(self) -> Result<Recording, String> {
        let mut world = self.world();
        let game = Rc::new(RefCell::new(HillGame::default()));
        let saved = game.clone();
        let mut metadata = vec![("scenario".into(), self.name().into())];
        if let Some(track) = self.track_name() {
            metadata.push(("track".into(), track.into()));
        }
        let options = RecorderOptions {
            metadata,
            // A game's own ground travels with its replay.
            ground: (self == Scenario::Tripped).then(tripped::ground),
            keyframe_state: (self == Scenario::GameLogic).then(|| {
                Box::new(move |_| saved.borrow().save()) as Box<dyn FnMut(u64) -> Vec<u8>>
            }),
            ..RecorderOptions::default()
        };
        let mut recorder = ReplayRecorder::new(&world, options).map_err(|e| e.to_string())?;
        let mut cutter = self.ghost_cutter(&world);
        for step in 0..self.steps() {
            match self {
                Scenario::MixedField => mixed_field_script(&mut world, step),
                Scenario::GameLogic => game.borrow_mut().apply(step, &mut world),
                Scenario::Retirements => retirements_script(&mut world, step),
                Scenario::Resets => resets_script(&mut world, step),
                _ => {}
            }
            recorder.step(&mut world, DT).map_err(|e| e.to_string())?;
            if let Some(c) = &mut cutter {
                c.observe(&world)?;
            }
        }
        let replay = recorder.finish(&world).map_err(|e| e.to_string())?;
        let ghosts = match cutter {
            Some(c) => vec![c.finish()?],
            None => Vec::new(),
        };
        Ok(Recording { replay, ghosts })
    }
}

fn track() -> Arc<Track> {
    Arc::new(Track::builtin("brandwood").expect("built-in track"))
}

/// The traffic scenario's track and field size.
const TRAFFIC_TRACK: &str = "hillcrest";
const TRAFFIC_CARS: usize = 20;

/// Twenty cars on the grid of Hillcrest's own surface, the presets
/// alternating, each with its own racecraft from seed 1 and a reset after
/// 10 s stuck, as `skidpad demo` races on a track's surface.
fn traffic_world() -> World {
    let track = Arc::new(Track::builtin(TRAFFIC_TRACK).expect("built-in track"));
    let mut world = World::new(WorldConfig::default()).expect("default config");
    world
        .set_ground(Arc::new(track.ground().expect("the track's ground")))
        .expect("ground");
    AiField::new(TRAFFIC_CARS)
        .on_track_surface(Some(10.0))
        .racecraft(Some(1))
        .line_up(&mut world, &track)
        .expect("the field");
    world
}

/// Two hatchbacks single file from 10 m before the line at 10 m/s, AI
/// driven: the first on the SUV tire file's import, the second on the
/// HMMWV's.
fn real_tires_world() -> World {
    let tires = [
        include_str!("../../sim-core/tests/data/tir/suv_Pac02Tire.tir"),
        include_str!("../../sim-core/tests/data/tir/HMMWV_Pac02Tire.tir"),
    ];
    ai_cars_at_10_m_s(tires.map(|file| {
        let tire = skidpad_core::parse_tir(file)
            .expect("a real tire file imports")
            .parameters;
        let mut car = preset("fwd_hatchback").expect("preset");
        car.tires.front = tire.clone();
        car.tires.rear = tire;
        car
    }))
}

/// Roll steer (`suspension.*.roll_steer`) at both signs: one car
/// understeers by it at both axles, the other oversteers at the rear.
fn roll_steer_world() -> World {
    ai_cars_at_10_m_s([(0.1, 0.15), (0.0, -0.1)].map(|(front, rear)| {
        let mut car = preset("fwd_hatchback").expect("preset");
        car.suspension.front.roll_steer = front;
        car.suspension.rear.roll_steer = rear;
        car
    }))
}

/// `cars` single file on Brandwood, the first 10 m before the line and
/// 10 m apart, at 10 m/s, AI driven.
fn ai_cars_at_10_m_s<const N: usize>(cars: [CarDefinition; N]) -> World {
    let track = track();
    let mut world = World::new(WorldConfig::default()).expect("default config");
    for (k, car) in cars.iter().enumerate() {
        let pose = skidpad_core::race::pose_along(
            &track,
            track.length() - 10.0 - 10.0 * k as f64,
            0.0,
            10.0,
        );
        let id = world.add_car(car, pose).expect("car");
        world.set_driver(id, Some(track.clone())).expect("driver");
    }
    world
}

/// Level-of-detail and surface changes, cycling over the cars.
fn mixed_field_script(world: &mut World, step: u64) {
    let k = (step / 400 % world.car_count() as u64) as usize;
    let car = world.car_ids().nth(k).expect("car");
    let r = match step % 400 {
        30 => world.set_lod(car, LodSetting::new(Lod::SingleTrack)),
        80 => world.set_wheel_surface(car, Wheel::RearLeft, SurfaceId::GRAVEL),
        110 => world.set_surface(car, SurfaceId::WET_ASPHALT),
        150 => world.set_lod(car, LodSetting::with_rate(Lod::Full, 500.0)),
        220 => world.set_lod(car, LodSetting::new(Lod::Frozen)),
        240 => world.set_lod(car, LodSetting::new(Lod::Full)),
        300 => world.set_surface(car, SurfaceId::DRY_ASPHALT),
        _ => Ok(()),
    };
    r.expect("scripted change is valid");
}

/// Steps before which the retirements scenario removes a car: inside a
/// keyframe interval, and right after the keyframe at step 1200 (which the
/// recorder then takes without the car).
pub const RETIREMENTS: [(u64, usize); 2] = [(500, 1), (1200, 2)];

/// Removes the second car before step 500 and the third of those left
/// (the fourth added) before step 1200.
fn retirements_script(world: &mut World, step: u64) {
    for (at, k) in RETIREMENTS {
        if step == at {
            let car = world.car_ids().nth(k).expect("car");
            world.remove_car(car).expect("car in the world");
        }
    }
}

/// Steps before which the resets scenario resets a car (its index):
/// inside a keyframe interval, right after the keyframe at step 1200, and
/// the first car a second time.
pub const RESETS: [(u64, usize); 3] = [(700, 1), (1200, 2), (1500, 0)];

/// Puts a car back as a game would: the second car 150 m back up the road
/// on the centre line, at rest; the third 3 m to its left, at its own
/// heading and speed; the first on the centre line level with it.
fn resets_script(world: &mut World, step: u64) {
    let track = track();
    for (at, k) in RESETS {
        if step != at {
            continue;
        }
        let car = world.car_ids().nth(k).expect("car");
        let pose = world.pose(car).expect("car in the world");
        let here = track.locate(pose.position.truncate());
        let put = match k {
            1 => skidpad_core::race::pose_along(&track, here.distance - 150.0, 0.0, 0.0),
            2 => InitialPose {
                x: pose.position.x - 3.0 * libm::sin(pose.yaw),
                y: pose.position.y + 3.0 * libm::cos(pose.yaw),
                yaw: pose.yaw,
                speed: pose.speed,
            },
            _ => skidpad_core::race::pose_along(&track, here.distance, 0.0, pose.speed),
        };
        world.reset_car(car, put).expect("a pose on the ground");
    }
}

/// The game-logic scenario's game: a hill between x = 150 and x = 260 on
/// the start straight (a grade the game sets per car each step), and a log
/// of the steps at which car 0 crossed x = 100.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HillGame {
    /// Steps at which car 0 crossed x = 100 (either way).
    pub checkpoints: Vec<u64>,
    last_x: Option<f64>,
}

impl HillGame {
    /// Runs before each step: slopes for every car, the checkpoint log.
    pub fn apply(&mut self, step: u64, world: &mut World) {
        for id in world.car_ids().collect::<Vec<_>>() {
            let p = world.pose(id).expect("car").position;
            let on_hill = p.x > 150.0 && p.x < 260.0 && p.y.abs() < 30.0;
            let slope = GroundSlope {
                grade: if on_hill { 0.08 } else { 0.0 },
                cross_slope: if on_hill { 0.02 } else { 0.0 },
            };
            world.set_ground_slope(id, slope).expect("valid slope");
        }
        let first = world.car_ids().next().expect("a car");
        let x = world.pose(first).expect("car 0").position.x;
        if let Some(last) = self.last_x
            && (last < 100.0) != (x < 100.0)
        {
            self.checkpoints.push(step);
        }
        self.last_x = Some(x);
    }

    /// The state as keyframe bytes.
    #[must_use]
    pub fn save(&self) -> Vec<u8> {
        let mut out = self.last_x.unwrap_or(f64::NAN).to_le_bytes().to_vec();
        for c in &self.checkpoints {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out
    }

    /// Restores `save`'s bytes (anything malformed reads as a fresh game).
    #[must_use]
    pub fn load(bytes: &[u8]) -> HillGame {
        let Some((head, rest)) = bytes.split_first_chunk::<8>() else {
            return HillGame::default();
        };
        let x = f64::from_le_bytes(*head);
        HillGame {
            last_x: (!x.is_nan()).then_some(x),
            checkpoints: rest
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
        }
    }
}

impl ReplayHooks for HillGame {
    fn before_step(&mut self, step: u64, world: &mut World) {
        self.apply(step, world);
    }

    fn on_restore(&mut self, _step: u64, state: &[u8]) {
        *self = HillGame::load(state);
    }

    fn save_state(&mut self, _step: u64) -> Option<Vec<u8>> {
        Some(self.save())
    }
}

/// Cuts lap `lap` of one car into a named ghost file.
pub struct LapGhostCutter {
    file: String,
    lap: u32,
    cutter: LapCutter,
    result: Option<Ghost>,
}

impl LapGhostCutter {
    fn new(file: &str, world: &World, car: CarId, lap: u32) -> Option<Self> {
        Some(LapGhostCutter {
            file: file.to_owned(),
            lap,
            cutter: LapCutter::new(car, track(), world).ok()?,
            result: None,
        })
    }

    /// Call after every step.
    pub fn observe(&mut self, world: &World) -> Result<(), String> {
        if let Some(done) = self.cutter.after_step(world).map_err(|e| e.to_string())?
            && done.lap.number == self.lap
        {
            self.result = Some(done.ghost);
        }
        Ok(())
    }

    /// The file name and the cut lap.
    pub fn finish(self) -> Result<(String, Ghost), String> {
        let ghost = self
            .result
            .ok_or_else(|| format!("{}: lap {} was not completed", self.file, self.lap))?;
        Ok((self.file, ghost))
    }
}
