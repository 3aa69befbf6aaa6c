//! A race that waits for its players and counts down: every car is held on
//! its grid slot whatever its player sends until the start tick, the
//! clients predict the hold and the start bit for bit, and a player who
//! joins after the start is not held.

use skidpad_core::CarInput;
use skidpad_core::race::GridLayout;
use skidpad_netplay::{
    HELD_INPUT, InputMessage, LinkModel, LoopbackRace, NetError, PlayerPlan, RaceConfig,
    RaceServer, start_inform, start_tick_of,
};

const COUNTDOWN: u32 = 180;

fn config(seats: usize, start_seats: u32) -> RaceConfig {
    RaceConfig {
        seat_tokens: (0..seats).map(|i| format!("token-{i}")).collect(),
        start_seats,
        countdown_ticks: COUNTDOWN,
        laps: 1,
        // One car a row, 60 m apart: the same car and AI keep the gap.
        grid: GridLayout {
            columns: 1,
            row_spacing: 60.0,
            ..GridLayout::default()
        },
        ..RaceConfig::default()
    }
}

fn full_throttle(seq: u32, tick: u32) -> InputMessage {
    InputMessage {
        seq,
        tick,
        input: CarInput {
            throttle: 1.0,
            ..CarInput::default()
        },
    }
}

#[test]
fn a_held_car_stays_on_its_slot_until_the_start_and_a_late_joiner_is_not_held() {
    let mut race = RaceServer::new(config(3, 2)).unwrap();
    let first = race.join("token-0", "ann").unwrap();
    assert_eq!(race.start_tick(), None, "one of two seats taken");
    let car = race.car_of(first).unwrap();
    let slot = race.world().pose(car).unwrap().position;
    let mut seq = 0;
    let mut drive = |race: &mut RaceServer, seat| {
        seq += 1;
        let tick = race.tick() + 1;
        race.input(seat, full_throttle(seq, tick)).unwrap();
    };
    for _ in 0..120 {
        drive(&mut race, first);
        race.step().unwrap();
        assert_eq!(race.world().input(car).unwrap(), HELD_INPUT);
    }
    let second = race.join("token-1", "bob").unwrap();
    let start = race.tick() + 1 + COUNTDOWN;
    assert_eq!(race.start_tick(), Some(start));
    while race.tick() + 1 < start {
        drive(&mut race, first);
        drive(&mut race, second);
        race.step().unwrap();
        assert!(!race.started());
    }
    let held = race.world().pose(car).unwrap();
    assert!(
        held.speed < 0.05 && (held.position - slot).truncate().length() < 0.05,
        "a held car moved: {held:?} from {slot}"
    );
    drive(&mut race, first);
    drive(&mut race, second);
    race.step().unwrap();
    assert!(race.started() && race.tick() == start);
    assert_eq!(race.world().input(car).unwrap().throttle, 1.0);
    // A third player joins the running race and drives at once.
    let third = race.join("token-2", "cat").unwrap();
    let late = race.car_of(third).unwrap();
    for _ in 0..60 {
        drive(&mut race, first);
        drive(&mut race, second);
        drive(&mut race, third);
        race.step().unwrap();
    }
    assert!(race.world().pose(late).unwrap().speed > 1.0);
    assert!(race.world().pose(car).unwrap().speed > 1.0);
}

#[test]
fn a_start_rule_the_race_cannot_meet_is_refused() {
    for (rule, says) in [
        (config(2, 3), "waits for 3 seats but has 2"),
        (
            RaceConfig {
                countdown_ticks: 601 * 60,
                ..config(2, 2)
            },
            "over 600 s",
        ),
    ] {
        match RaceServer::new(rule) {
            Err(NetError::Refused { reason }) => assert!(reason.contains(says), "{reason}"),
            other => panic!("expected a refusal saying {says:?}, got {:?}", other.err()),
        }
    }
}

#[test]
fn the_start_inform_reads_back() {
    assert_eq!(
        start_tick_of(start_inform(None, false, 1, 2).as_bytes()),
        Some(None)
    );
    assert_eq!(
        start_tick_of(start_inform(Some(301), false, 2, 2).as_bytes()),
        Some(Some(301))
    );
    assert_eq!(start_inform(Some(301), true, 2, 2), "[1]");
    for other in [
        "[1]",
        r#"[2,{"position":1}]"#,
        "",
        "[0]",
        r#"[0,{"startTick":-4}]"#,
        "{",
    ] {
        assert_eq!(start_tick_of(other.as_bytes()), None, "{other}");
    }
}

#[test]
fn clients_predict_the_hold_and_the_start_bit_for_bit() {
    // Three players through the link (100 ms ± 20 ms): the race waits for
    // all three, the last joining 2.5 s after the first; one more joins
    // after the start.
    let plans = [0, 60, 150, 600].map(|join_at_tick| PlayerPlan {
        join_at_tick,
        ..PlayerPlan::default()
    });
    let mut race = LoopbackRace::new(config(4, 3), LinkModel::default(), &plans).unwrap();
    let mut moved_before_start = 0.0_f64;
    while !race.server().started() {
        race.tick().unwrap();
        let server = race.server();
        for car in server.world().car_ids() {
            moved_before_start = moved_before_start.max(server.world().pose(car).unwrap().speed);
        }
    }
    assert_eq!(race.server().start_tick(), Some(151 + COUNTDOWN));
    assert!(
        moved_before_start < 0.05,
        "{moved_before_start} m/s before the start"
    );
    assert!(
        race.run_laps(1, 60 * 200).unwrap(),
        "the race did not finish"
    );
    for (i, player) in race.players().iter().enumerate() {
        let stats = player.client().unwrap().stats();
        assert!(
            stats.checked > 60 * 30,
            "player {i}: {} checked",
            stats.checked
        );
        assert_eq!(stats.mispredicted, 0, "player {i}: {:?}", stats.last);
    }
}
