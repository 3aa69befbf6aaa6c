//! Prediction against the authoritative server, in one process, through
//! the seeded link emulator at 100 ms ± 20 ms each way (`LoopbackRace`):
//! with the cars kept apart every checked tick of every client equals the
//! server's bits; with contact between two players the mispredictions are
//! counted and named, the corrections stay bounded and the race goes on.
//! The players drive as the AI would (`AiPilot`).

use skidpad_core::race::GridLayout;
use skidpad_netplay::{LinkModel, LoopbackRace, PlayerPlan, RaceConfig};

fn tokens(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("seat-token-{i}")).collect()
}

fn laps_of(race: &LoopbackRace, player: usize) -> usize {
    let server = race.server();
    let seat = race.players()[player].seat().expect("seated");
    server
        .car_of(seat)
        .and_then(|car| server.laps_of(car))
        .unwrap_or(0)
}

#[test]
fn apart_every_checked_tick_equals_the_servers_bits() {
    // One car per row, 60 m apart: the same car and AI keep the gap.
    let config = RaceConfig {
        seat_tokens: tokens(2),
        grid: GridLayout {
            columns: 1,
            row_spacing: 60.0,
            ..GridLayout::default()
        },
        laps: 3,
        ..RaceConfig::default()
    };
    // The second player joins a running race, two seconds in; it steers
    // its lead, the first keeps the one it started with.
    let plans = [
        PlayerPlan::default(),
        PlayerPlan {
            join_at_tick: 120,
            adaptive_lead: true,
            lead_ticks: 40,
            ..PlayerPlan::default()
        },
    ];
    let mut race = LoopbackRace::new(config, LinkModel::default(), &plans).unwrap();
    assert!(
        race.run_laps(3, 60 * 400).unwrap(),
        "the race did not finish"
    );
    for (i, player) in race.players().iter().enumerate() {
        assert!(laps_of(&race, i) >= 3);
        let stats = player.client().unwrap().stats();
        assert!(
            stats.checked > 3 * 60 * 30 / 2,
            "only {} states checked",
            stats.checked
        );
        assert_eq!(stats.mispredicted, 0, "mispredicted: {:?}", stats.last);
        assert_eq!(stats.late_corrections, 0);
    }
    let server = race.server();
    assert_eq!(server.stats().late_inputs, 0);
    assert_eq!(server.stats().refused_inputs, 0);
    assert_eq!(server.stats().contacts, 0);
}

/// Player 1 (on the right of the front row) steers left into player 0 for
/// a second and a half after the start, then races on. (A negative steer
/// input turns left: `CarInput::steer` is positive to the right.)
fn into_the_neighbour(tick: u32) -> f64 {
    if (30..120).contains(&tick) { -0.6 } else { 0.0 }
}

#[test]
fn with_contact_mispredictions_are_counted_and_named_and_the_race_goes_on() {
    let config = RaceConfig {
        seat_tokens: tokens(2),
        grid: GridLayout {
            column_spacing: 3.0,
            ..GridLayout::default()
        },
        laps: 1,
        ..RaceConfig::default()
    };
    let plans = [
        PlayerPlan::default(),
        PlayerPlan {
            nudge: into_the_neighbour,
            ..PlayerPlan::default()
        },
    ];
    let mut race = LoopbackRace::new(config, LinkModel::default(), &plans).unwrap();
    // Tick by tick, counting the ticks the two cars touch and how often
    // they start touching (an episode), from the server's world.
    let (mut touching_ticks, mut episodes, mut touching) = (0, 0, false);
    let mut finished = false;
    for _ in 0..60 * 200 {
        finished = race.run_laps(1, 1).unwrap();
        let now = race
            .server()
            .world()
            .contacts()
            .iter()
            .any(|c| c.second.is_some());
        touching_ticks += u64::from(now);
        episodes += u64::from(now && !touching);
        touching = now;
        if finished {
            break;
        }
    }
    assert!(finished, "a car did not finish its lap after the contact");
    let contacts = race.server().stats().contacts;
    eprintln!("{touching_ticks} ticks in contact, {episodes} episodes, {contacts} contact events");
    assert!(contacts > 0, "the cars never touched");
    assert_eq!(contacts, episodes, "one contact event per episode");
    assert!(touching_ticks > episodes, "episodes last more than a tick");
    let mut mispredicted = 0;
    for player in race.players() {
        let stats = player.client().unwrap().stats();
        mispredicted += stats.mispredicted;
        eprintln!(
            "seat {:?}: {} checked, {} mispredicted, largest correction {:.3} m",
            player.seat(),
            stats.checked,
            stats.mispredicted,
            stats.largest_correction,
        );
        if let Some(miss) = &stats.last {
            assert!(!miss.fields.is_empty(), "a misprediction names its fields");
            assert!(
                miss.fields
                    .iter()
                    .any(|f| f.field.starts_with("velocity") || f.field.starts_with("position")),
                "{miss:?}"
            );
            // Contact only happens early: the prediction is exact again
            // long before the end.
            assert!(
                miss.tick < 60 * 20,
                "still mispredicting at tick {}",
                miss.tick
            );
        }
        assert!(
            stats.largest_correction < 3.0,
            "a correction of {} m",
            stats.largest_correction
        );
    }
    assert!(mispredicted > 0, "contact must show as mispredictions");
}

#[test]
fn a_reset_is_corrected_with_a_cut_and_every_other_state_is_predicted_exactly() {
    let config = RaceConfig {
        seat_tokens: tokens(1),
        laps: 1,
        ..RaceConfig::default()
    };
    let mut race =
        LoopbackRace::new(config, LinkModel::default(), &[PlayerPlan::default()]).unwrap();
    let run = |race: &mut LoopbackRace, ticks: u32| {
        for _ in 0..ticks {
            race.tick().unwrap();
        }
    };
    // Ten seconds in, the car is at speed; the reset puts it on the
    // centre line at rest, facing along the track.
    run(&mut race, 600);
    let server = race.server();
    let car = server.car_of(race.players()[0].seat().unwrap()).unwrap();
    let speed_before = server.world().pose(car).unwrap().speed;
    assert!(
        speed_before > 10.0,
        "at speed before the reset: {speed_before}"
    );
    assert!(race.ask_reset(0), "the reset is taken");
    assert!(
        !race.ask_reset(0),
        "a second one before the first is made is dropped"
    );
    run(&mut race, 1);
    let pose = race.server().world().pose(car).unwrap();
    assert!(
        pose.speed.abs() < 1e-3,
        "at rest after the reset: {}",
        pose.speed
    );
    let on_track = race.server().track().locate(pose.position.truncate());
    assert!(
        on_track.offset.abs() < 1e-3,
        "on the centre line: {}",
        on_track.offset
    );
    // Within the reset interval of it another is dropped; after, taken.
    let interval = (race.server().config().reset_interval_s * 60.0) as u32;
    run(&mut race, interval - 2);
    assert!(!race.ask_reset(0), "too soon after the last");
    run(&mut race, 2);
    assert!(race.ask_reset(0), "taken once the interval has passed");
    run(&mut race, 600);
    let stats = race.players()[0].client().unwrap().stats();
    eprintln!("{stats:?}");
    assert_eq!(stats.reset_corrections, 2, "each reset corrected once");
    assert_eq!(stats.mispredicted, 0, "mispredicted: {:?}", stats.last);
    assert!(
        stats.checked > 600, // of about 660 frames (one every 2 ticks)
        "only {} states checked",
        stats.checked
    );
    // The drawn car jumped with the physics (no easing across a reset).
    let offset = race.players()[0].client().unwrap().drawn_offset();
    assert!(offset.length() < 1e-9, "drawn offset {offset}");
}
