//! A time trial against a ghost lap: a car's flying lap (its second), kept
//! by its `GhostTrail` and raced again by the same car on its own second
//! lap, gives a gap of nothing all the way round and splits within two
//! hundredths at every sector boundary; raced by another car, the split at
//! the line is the difference of the two lap times.

mod common;

use std::sync::Arc;

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use bevy_time::TimeUpdateStrategy;
use common::{brandwood, headless_app, world_on};
use skidpad_bevy::{
    CarSpawn, GhostRival, GhostSplit, GhostTrail, LapCompleted, SkidpadRace, SkidpadWorld,
};
use skidpad_core::race::{GridLayout, Lap, RaceRules, grid_pose};
use skidpad_core::{Track, preset};
use skidpad_ghost::{Ghost, slice_ghost};

#[derive(Resource, Default)]
struct Heard {
    laps: Vec<Lap>,
    splits: Vec<GhostSplit>,
    largest_gap: f64,
}

/// The ghost to race from the car's second lap on, if any.
#[derive(Resource)]
struct Rival(Option<(Ghost, Arc<Track>)>);

fn listen(
    mut commands: Commands,
    mut laps: MessageReader<LapCompleted>,
    mut splits: MessageReader<GhostSplit>,
    rivals: Query<&GhostRival>,
    mut rival: ResMut<Rival>,
    mut heard: ResMut<Heard>,
) {
    for lap in laps.read() {
        heard.laps.push(lap.lap.clone());
        // The first lap done: the flying lap begins, and the rival with it.
        if let (1, Some((ghost, track))) = (heard.laps.len(), rival.0.take()) {
            commands
                .entity(lap.entity.unwrap())
                .insert(GhostRival::new(&ghost, track));
        }
    }
    heard.splits.extend(splits.read().copied());
    if heard.laps.len() != 1 {
        return;
    }
    for rival in &rivals {
        if let Some(gap) = rival.gap {
            heard.largest_gap = heard.largest_gap.max(gap.abs());
        }
    }
}

/// One AI car of `preset` from pole on brandwood, one step a frame,
/// until its second lap is done; racing `rival` on that lap.
fn two_laps(track: &Arc<Track>, car: &str, rival: Option<Ghost>) -> (App, Entity) {
    let mut app = headless_app(TimeUpdateStrategy::FixedTimesteps(1));
    app.insert_resource(SkidpadWorld(world_on(track)))
        .init_resource::<Heard>()
        .insert_resource(Rival(rival.map(|g| (g, track.clone()))))
        .add_systems(Update, listen);
    let pose = grid_pose(track, 0, &GridLayout::default());
    let spawn = CarSpawn::new(preset(car).unwrap(), pose).driven_on(track.clone());
    let entity = app.world_mut().spawn((spawn, GhostTrail::default())).id();
    let race = SkidpadRace::new(
        track.clone(),
        RaceRules::default(),
        &app.world().resource::<SkidpadWorld>().0,
    );
    app.insert_resource(race);
    while app.world().resource::<Heard>().laps.len() < 2 {
        app.update();
    }
    // The ghost's line may lie a step past the car's crossing.
    for _ in 0..3 {
        app.update();
    }
    (app, entity)
}

fn lap_ghost(app: &App, car: Entity, lap: &Lap) -> Ghost {
    let trail = app.world().get::<GhostTrail>(car).unwrap().ghost().unwrap();
    slice_ghost(&trail, lap.start, lap.end).unwrap()
}

#[test]
fn a_ghost_lap_is_raced_with_its_gap_and_splits() {
    let track = brandwood();
    let (app, car) = two_laps(&track, "rwd_sports", None);
    let lap = app.world().resource::<Heard>().laps[1].clone();
    let ghost = lap_ghost(&app, car, &lap);

    // The same car again: no gap anywhere, splits equal to the ghost's.
    let (app, _) = two_laps(&track, "rwd_sports", Some(ghost.clone()));
    let heard = app.world().resource::<Heard>();
    assert_eq!(
        heard.laps[1].time(),
        lap.time(),
        "the same lap, bit for bit"
    );
    assert_eq!(
        heard.splits.len(),
        track.sectors().len() + 1,
        "each boundary and the line: {:?}",
        heard.splits
    );
    for split in &heard.splits {
        let delta = split.delta.expect("the ghost passed every boundary");
        assert!(delta.abs() < 0.02, "split {}: {delta} s", split.checkpoint);
    }
    assert!(
        heard.largest_gap < 0.05,
        "largest gap {} s",
        heard.largest_gap
    );

    // Another car against that ghost: at the line, the difference of the laps.
    let (app, _) = two_laps(&track, "fwd_hatchback", Some(ghost));
    let heard = app.world().resource::<Heard>();
    let at_line = heard.splits.last().unwrap();
    let difference = heard.laps[1].time() - lap.time();
    assert!(
        (at_line.delta.unwrap() - difference).abs() < 0.02,
        "split at the line {:?} against the laps' difference {difference}",
        at_line.delta
    );
    println!(
        "rwd flying lap {:.3} s; the hatchback {difference:+.3} s at the line",
        lap.time()
    );
}
