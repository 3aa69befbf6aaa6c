//! Verifying one submitted replay: the rules a leaderboard needs on top of
//! bit-exact re-simulation. Everything ranked comes from the server's own
//! re-simulation; of the replay's metadata only names are read (track,
//! player, which car), never a time.

use std::sync::Arc;

use skidpad_core::{
    CarDefinition, CarId, SIMULATION_VERSION, Track, World, WorldConfig, hex, preset, preset_names,
};
use skidpad_replay::{
    Limits, Replay, ReplayHooks, RewindTotals, Runs, decode_replay_with, verify_replay,
    verify_replay_on,
};

use crate::boards::{Boards, CarClass, RewindPolicy, class_fingerprint, registered_ground};

use crate::laps::Lap;
use crate::outcome::{DesyncField, Outcome, Rejection, Verified};
use crate::plausibility::InputAudit;
use crate::seals::SealPolicy;
use skidpad_ghost::{CutLap, LapCutter, encode_ghost};

/// Metadata key naming the built-in track: the replay crate's, whose
/// documented rule for a replay without it the judge follows (no track,
/// nothing to time: rejected).
pub const TRACK_KEY: &str = skidpad_replay::ReplayHeader::TRACK_KEY;
/// Metadata key naming the player (default [`ANONYMOUS`]): the replay
/// crate's.
pub const PLAYER_KEY: &str = skidpad_replay::ReplayHeader::PLAYER_KEY;
/// Metadata key with the ranked car's index (default 0): the replay
/// crate's.
pub const CAR_KEY: &str = skidpad_replay::ReplayHeader::PLAYER_CAR_KEY;
/// The player name of a replay that gives none.
pub const ANONYMOUS: &str = "anonymous";
/// Longest player name kept, in characters.
pub const MAX_PLAYER_CHARS: usize = 64;
/// The ranked car must start slower than this, m/s: a replay's first
/// keyframe is data the submitter wrote, so a flying start at any speed
/// would otherwise be accepted.
pub const MAX_START_SPEED: f64 = 1.0;

/// Re-simulates `bytes` (a plain or gzip `.skr`) within `limits` and
/// judges the run, taking seals as `seals` says, on the built-in tracks
/// only. Never panics on hostile input; every failure is a [`Rejection`].
#[must_use]
pub fn judge(bytes: &[u8], limits: &Limits, seals: &SealPolicy) -> Outcome {
    judge_on(bytes, limits, seals, None)
}

/// [`judge`], also on the tracks `boards` registered: a run names one by
/// its fingerprint, and its laps are timed on the registered track's line.
#[must_use]
pub fn judge_on(
    bytes: &[u8],
    limits: &Limits,
    seals: &SealPolicy,
    boards: Option<&Boards>,
) -> Outcome {
    match judge_inner(bytes, limits, seals, boards) {
        Ok(verified) => Outcome::Verified(Box::new(verified)),
        Err(reason) => Outcome::Rejected { reason },
    }
}

/// The track a run is timed on: a registered board's (a carried definition
/// must be that track), or a built-in one; any other is refused, naming it.
fn ranked_track(
    header: &skidpad_replay::ReplayHeader,
    boards: Option<&Boards>,
) -> Result<Arc<Track>, Rejection> {
    let named = header.metadata_value(TRACK_KEY).ok_or_else(|| {
        Rejection::rules(format!(
            "the replay names no track (metadata `{TRACK_KEY}`)"
        ))
    })?;
    if let Some(board) = boards.and_then(|b| b.board(named)) {
        header
            .track_with(Some(&board.track))
            .map_err(|e| Rejection::rules(e.to_string()))?;
        return Ok(board.track.clone());
    }
    if skidpad_core::track_names().contains(&named) {
        return Track::builtin(named)
            .map(Arc::new)
            .map_err(|e| Rejection::rules(e.to_string()));
    }
    Err(Rejection::rules(format!(
        "unknown track {named:?}: this service has not registered it"
    )))
}

fn judge_inner(
    bytes: &[u8],
    limits: &Limits,
    seals: &SealPolicy,
    boards: Option<&Boards>,
) -> Result<Verified, Rejection> {
    let replay = decode_replay_with(bytes, limits)?;
    let header = &replay.header;
    if header.simulation_version != SIMULATION_VERSION {
        return Err(Rejection::SimulationVersion {
            replay: header.simulation_version,
            server: SIMULATION_VERSION,
            message: format!(
                "recorded with simulation version {}, this server simulates version {SIMULATION_VERSION}",
                header.simulation_version
            ),
        });
    }
    // Before anything is simulated: the names read below are trusted only
    // as the seal allows.
    let sealed_by = seals.check(&replay)?;
    let metadata = |key: &str| header.metadata_value(key);
    let track = ranked_track(header, boards)?;
    let track_key = metadata(TRACK_KEY).unwrap_or_default().to_owned();
    let player = metadata(PLAYER_KEY)
        .map(|p| p.trim().chars().take(MAX_PLAYER_CHARS).collect::<String>())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ANONYMOUS.to_owned());
    let car = match metadata(CAR_KEY) {
        None => 0,
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|&c| c < header.car_count)
            .ok_or_else(|| {
                Rejection::rules(format!("`{CAR_KEY}` {v:?} is not a car of this replay"))
            })?,
    };
    check_world_settings(&replay)?;
    let def = replay
        .definitions
        .get(car as usize)
        .ok_or_else(|| Rejection::Malformed {
            message: "the replay does not embed its car definitions".into(),
        })?;
    let classes = boards
        .and_then(|b| b.board(&track_key))
        .and_then(|board| board.classes.as_deref());
    let class = car_class(def, car, classes)?;
    // A run taken over from another starts where its source was; the
    // door lets it in only for a practice board.
    let taken_over = header.take_over().map_err(|e| Rejection::Malformed {
        message: e.to_string(),
    })?;
    let practice = boards
        .and_then(|b| b.board(&track_key))
        .is_some_and(|board| board.practice);
    let rewinds = Some(RewindTotals::of(&replay)).filter(|t| t.count > 0);
    if let Some(t) = &rewinds {
        let kept = boards
            .and_then(|b| b.board(&track_key))
            .is_some_and(|board| board.rewinds == RewindPolicy::Unranked);
        if !kept {
            return Err(Rejection::rules(format!(
                "the player rewound {} times, taking back {:.1} s; this board ranks runs without rewinds \
                 (\"rewinds\": \"unranked\" in --boards keeps them, unranked)",
                t.count, t.seconds
            )));
        }
    }
    match (&taken_over, practice) {
        (None, _) => check_standing_start(&replay, def, car)?,
        (Some(_), true) => {}
        (Some(_), false) => {
            return Err(Rejection::rules(
                "the run was taken over from another run; only a practice board ranks it"
                    .to_owned(),
            ));
        }
    }

    if replay.cars[car as usize].removed_at.is_some() {
        return Err(Rejection::rules(format!(
            "car {car} is removed from the race before the replay ends"
        )));
    }
    let mut observer = RunObserver {
        index: car as usize,
        car: None,
        dt: &replay.dt,
        time: 0.0,
        track: track.clone(),
        laps: None,
        best: None,
        audit: InputAudit::default(),
    };
    let report = match registered_ground(boards, header) {
        Some(ground) => verify_replay_on(&replay, ground, &mut observer, limits)?,
        None => verify_replay(&replay, &mut observer, limits)?,
    };
    if let Some(first) = report.first_desync {
        return Err(Rejection::Desync {
            step: first.step,
            desyncs: report.desyncs,
            cars: first.cars.iter().map(|c| c.to_raw()).collect(),
            message: format!(
                "re-simulation differs from the recording at step {} ({} keyframes differ, {} fields at the first)",
                first.step,
                report.desyncs,
                first.fields.len()
            ),
            fields: first
                .fields
                .into_iter()
                .map(|f| DesyncField {
                    car: f.car.to_raw(),
                    field: f.field.to_owned(),
                    recorded: f.recorded,
                    simulated: f.simulated,
                })
                .collect(),
        });
    }
    Ok(Verified {
        track: track_key,
        class,
        player,
        car,
        steps: report.steps,
        duration: report.duration,
        final_hash: hex(&report.final_hash),
        best_lap: observer.best.as_ref().map(|cut| cut.lap.time()),
        laps: observer
            .laps
            .as_ref()
            .map(|cutter| cutter.timer().laps().iter().map(Lap::from).collect())
            .unwrap_or_default(),
        flags: observer.audit.flags(),
        sealed_by,
        taken_over,
        rewinds,
        best_lap_ghost: match &observer.best {
            Some(cut) => Some(encode_ghost(&cut.ghost).map_err(|e| Rejection::Malformed {
                message: format!("the best lap's ghost does not encode: {e}"),
            })?),
            None => None,
        },
    })
}

/// Gravity, air and grip are the defaults: a replay re-simulates with the
/// world settings it carries, so a lighter gravity or a grippier surface
/// table would verify bit for bit and win.
fn check_world_settings(replay: &Replay) -> Result<(), Rejection> {
    let official = WorldConfig::default();
    let header = &replay.header;
    if header.gravity.to_bits() != official.gravity.to_bits()
        || header.air_density.to_bits() != official.air_density.to_bits()
        || header.surfaces != official.surfaces
    {
        return Err(Rejection::rules(format!(
            "world settings differ from the defaults (gravity {} m/s², air density {} kg/m³, {} surfaces)",
            header.gravity,
            header.air_density,
            header.surfaces.surfaces().len()
        )));
    }
    Ok(())
}

/// The preset the car's embedded definition equals: a class is a car as
/// shipped, so a tuned definition is not ranked with the stock ones. The
/// gearbox's shift mode is the driver's choice, not a tune (a player who
/// shifts with paddles or an H-pattern drives the same car with a manual
/// box), so it is left out of the comparison.
fn car_class(
    def: &CarDefinition,
    car: u32,
    classes: Option<&[CarClass]>,
) -> Result<String, Rejection> {
    if let Some(classes) = classes {
        let fingerprint = class_fingerprint(def);
        return classes
            .iter()
            .find(|class| class.cars.contains(&fingerprint))
            .map(|class| class.name.clone())
            .ok_or_else(|| {
                let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
                Rejection::rules(format!(
                    "car {car} ({:?}) is in none of this board's classes {names:?} (--boards)",
                    def.name
                ))
            });
    }
    let same_car = |p: &CarDefinition| {
        let mut shifted = p.clone();
        shifted.gearbox.mode = def.gearbox.mode;
        shifted == *def
    };
    preset_names()
        .into_iter()
        .find(|name| preset(name).is_ok_and(|p| same_car(&p)))
        .map(str::to_owned)
        .ok_or_else(|| {
            Rejection::rules(format!(
                "car {car} ({:?}) matches no class: its definition equals none of the presets {:?}",
                def.name,
                preset_names()
            ))
        })
}

/// The ranked car starts at rest (keyframe 0 is the submitter's data).
fn check_standing_start(replay: &Replay, def: &CarDefinition, car: u32) -> Result<(), Rejection> {
    // A car that joined late starts where it arrived; the others at the
    // first keyframe, which holds the cars present then, in order.
    let index = car as usize;
    let first = match replay.cars.get(index).and_then(|c| c.arrival.as_ref()) {
        Some(arrival) => Some(arrival.snapshot.as_slice()),
        None => replay.keyframes.first().and_then(|k| {
            let place = replay.present_at(k.step).position(|i| i == index)?;
            k.cars.get(place).map(|c| c.snapshot.as_slice())
        }),
    };
    let Some(first) = first else {
        return Err(Rejection::Malformed {
            message: "the replay has no first keyframe for the ranked car".into(),
        });
    };
    let speed = World::new(WorldConfig::default())
        .and_then(|mut world| {
            let id = world.add_car(def, skidpad_core::InitialPose::default())?;
            world.restore(id, first)?;
            Ok(world.pose(id)?.speed)
        })
        .map_err(|e| Rejection::Malformed {
            message: format!("the first keyframe of car {car}: {e}"),
        })?;
    if speed.is_nan() || speed > MAX_START_SPEED {
        return Err(Rejection::rules(format!(
            "car {car} starts at {speed:.2} m/s; a ranked run starts at rest (below {MAX_START_SPEED} m/s)"
        )));
    }
    Ok(())
}

/// Sees the ranked car after every re-simulated step.
struct RunObserver<'r> {
    /// The judged car's index in the replay, and its id in the playback
    /// world once the player has started.
    index: usize,
    car: Option<CarId>,
    dt: &'r Runs<f64>,
    /// Simulated time after the last observed step, s.
    time: f64,
    track: Arc<Track>,
    /// The race layer's laps of the car, each cut as a ghost; made at the
    /// car's start.
    laps: Option<LapCutter>,
    /// The fastest valid lap so far, with its ghost.
    best: Option<CutLap>,
    audit: InputAudit,
}

impl ReplayHooks for RunObserver<'_> {
    fn on_start(&mut self, cars: &[CarId]) {
        self.car = cars.get(self.index).copied();
    }

    fn before_step(&mut self, _step: u64, world: &mut World) {
        // The car's place before the first step is its start, from which
        // the race layer times lap 1.
        if self.laps.is_none()
            && let Some(car) = self.car
        {
            self.laps = LapCutter::new(car, self.track.clone(), world).ok();
        }
    }

    fn after_step(&mut self, step: u64, world: &World) {
        // The player only calls this for steps it played, whose dt, pose,
        // input, level and surfaces all exist.
        let dt = self.dt.at(step - 1).unwrap_or_default();
        self.time += dt;
        let (Some(car), Some(cutter)) = (self.car, self.laps.as_mut()) else {
            return;
        };
        // A reset came before this step: the lap it falls in is not clean.
        if world.last_step_record(car).is_ok_and(|r| r.reset.is_some()) {
            cutter.note_reset();
        }
        if let (Ok(input), Ok(lod), Ok(surfaces)) =
            (world.input(car), world.lod(car), world.wheel_surfaces(car))
        {
            self.audit.observe(dt, input, lod, surfaces);
        }
        // A ghost that cannot be cut (a pose out of the world) times no lap.
        if let Ok(Some(done)) = cutter.after_step(world)
            && done.lap.is_valid()
            && self
                .best
                .as_ref()
                .is_none_or(|best| done.lap.time() < best.lap.time())
        {
            self.best = Some(done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skidpad_core::ShiftMode;

    #[test]
    fn a_manual_gearbox_is_the_same_class_and_a_tune_is_not() {
        let mut manual = preset("rwd_sports").unwrap();
        manual.gearbox.mode = ShiftMode::Manual;
        assert_eq!(car_class(&manual, 0, None).unwrap(), "rwd_sports");
        let mut tuned = manual.clone();
        tuned.gearbox.final_drive *= 1.1;
        let refused = car_class(&tuned, 0, None).unwrap_err();
        assert!(
            format!("{refused:?}").contains("matches no class"),
            "{refused:?}"
        );
    }
}
