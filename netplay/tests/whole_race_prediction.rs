//! Every car predicted from confirmed inputs (`RaceClient`), in one
//! process through the seeded link emulator at 100 ms ± 20 ms each way
//! (`LoopbackRace`): 8 players in a pack for the first 25 s of a race,
//! pushing into each other, one joining two seconds late and one reset
//! by its player; every client's confirmed race equals the server's
//! hashes at every frame (no desync). The players drive as the AI would
//! (`AiPilot`), whose steering changes almost every tick, so nearly every
//! frame goes back a few ticks: the figures are printed here, and the
//! 3-lap figures are `examples/netplay_figures.rs`'s (BENCHMARKS.md).

use skidpad_core::race::GridLayout;
use skidpad_netplay::{LinkModel, LoopbackRace, PlayerPlan, RaceConfig};

fn tokens(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("seat-token-{i}")).collect()
}

/// Odd players lean left for a second after the start, into the car
/// beside them; even ones lean right a little later.
fn lean_left(tick: u32) -> f64 {
    if (60..120).contains(&tick) { -0.3 } else { 0.0 }
}

fn lean_right(tick: u32) -> f64 {
    if (150..200).contains(&tick) { 0.3 } else { 0.0 }
}

/// A two-seat race whose seat 0 predicts every car: its first `count`
/// frames (the first a first shot), and one more first shot asked for
/// after frame `resend_after` when given.
fn two_seat_frames(
    count: usize,
    resend_after: Option<usize>,
) -> (skidpad_netplay::RaceServer, Vec<skidpad_netplay::Frame>) {
    use skidpad_netplay::{RaceServer, SeatId, decode_frame};
    let mut server = RaceServer::new(RaceConfig {
        seat_tokens: tokens(2),
        ..RaceConfig::default()
    })
    .unwrap();
    let seat = server.join("seat-token-0", "a").unwrap();
    server.join("seat-token-1", "b").unwrap();
    server.set_predicts_all(seat, true).unwrap();
    let mut frames = Vec::new();
    while frames.len() < count {
        for out in server.step().unwrap() {
            if out.seat == seat {
                frames.push(decode_frame(server.schema(), &out.frame).unwrap());
            }
        }
        if resend_after == Some(frames.len()) {
            server.resend_first_shot(SeatId(0)).unwrap();
        }
    }
    (server, frames)
}

/// Seat 0's whole-race client from `first_shot`.
fn client_of(
    server: &skidpad_netplay::RaceServer,
    first_shot: &skidpad_netplay::Frame,
) -> skidpad_netplay::RaceClient {
    let def = skidpad_core::preset(&server.config().car).unwrap();
    let ground = server.world().ground().clone();
    skidpad_netplay::RaceClient::new(
        skidpad_core::WorldConfig::default(),
        ground,
        &def,
        server.dt(),
        server.config().ticks_per_frame,
        first_shot,
    )
    .unwrap()
}

/// Ticks the race runs: 25 s.
const RACE_TICKS: u32 = 25 * 60;

#[test]
fn a_pack_of_eight_predicted_whole_never_desyncs() {
    let config = RaceConfig {
        seat_tokens: tokens(8),
        grid: GridLayout {
            column_spacing: 3.5,
            row_spacing: 7.0,
            ..GridLayout::default()
        },
        laps: 1,
        ..RaceConfig::default()
    };
    let plans: Vec<PlayerPlan> = (0..8)
        .map(|i| PlayerPlan {
            predict_all: true,
            adaptive_lead: true,
            nudge: if i % 2 == 1 { lean_left } else { lean_right },
            // The last player joins a running race.
            join_at_tick: if i == 7 { 120 } else { 0 },
            ..PlayerPlan::default()
        })
        .collect();
    let mut race = LoopbackRace::new(config, LinkModel::default(), &plans).unwrap();
    // A reset in the middle of the pack at 10 s: every client must take
    // it from the confirmations.
    for _ in 0..600 {
        race.tick().unwrap();
    }
    assert!(race.ask_reset(3), "the reset was refused");
    for _ in 600..RACE_TICKS {
        race.tick().unwrap();
    }
    assert!(race.server().stats().contacts > 0, "the pack never touched");
    let (mut confirmed, mut wrong, mut frames, mut rollbacks) = (0, 0, 0, 0);
    for player in race.players() {
        let client = player.race_client().expect("a whole-race client");
        let stats = client.stats();
        assert_eq!(stats.desyncs, 0, "{:?}", stats.last_desync);
        assert_eq!(client.cars().count(), 8, "every car is predicted");
        let resets = u64::from(client.seat() == 3);
        assert_eq!(stats.own_resets, resets, "the reset came confirmed");
        // A frame every 2 ticks from the first shot (at 2 s at the latest)
        // to the last that arrived (a round trip before the end).
        assert!(stats.frames > 650, "only {} frames taken", stats.frames);
        eprintln!(
            "seat {}: {} ticks confirmed, {} guessed wrong; {} of {} frames rolled back \
             ({} ticks again); {} corrections, p99 {:.2} m (drawn {:.2} m), largest {:.2} m",
            client.seat(),
            stats.confirmed_ticks,
            stats.wrong_ticks,
            stats.rollbacks,
            stats.frames,
            stats.resimulated_ticks,
            stats.corrections.count(),
            stats.corrections.quantile(0.99),
            stats.drawn_corrections.quantile(0.99),
            stats.largest_correction,
        );
        confirmed += stats.confirmed_ticks;
        wrong += stats.wrong_ticks;
        frames += stats.frames;
        rollbacks += stats.rollbacks;
    }
    eprintln!(
        "all: {wrong} of {confirmed} ticks guessed wrong, {rollbacks} of {frames} frames rolled back"
    );
}

/// Confirmations that do not fit the race are refused with the reason,
/// never a panic, and a hash that differs is a desync naming the seat.
#[test]
fn confirmations_that_do_not_fit_are_refused_and_a_wrong_hash_is_a_desync() {
    use skidpad_core::InitialPose;
    use skidpad_netplay::{
        Block, Frame, HASHES_KEY, INPUTS_KEY, InputChange, PLACED_KEY, PlacedCar, Placement, Value,
    };

    let (server, frames) = two_seat_frames(4, None);
    let client = || client_of(&server, &frames[0]);
    let with = |frame: &Frame, key: u8, row: Vec<Value>| {
        let mut frame = frame.clone();
        match frame.blocks.iter_mut().find(|(k, _)| *k == key) {
            Some((_, Block::List(rows))) => rows.push(row),
            _ => frame.blocks.push((key, Block::List(vec![row]))),
        }
        frame
    };
    let refused = |frame: &Frame| client().on_frame(frame).unwrap_err().to_string();
    // A frame missing between the first shot and this one.
    assert!(refused(&frames[2]).contains("frames were lost"));
    // An input for a tick the frame does not confirm.
    let late = InputChange {
        seat: 1,
        tick: frames[1].tick + 5,
        input: Default::default(),
    };
    let message = refused(&with(&frames[1], INPUTS_KEY, late.to_row()));
    assert!(message.contains("outside ticks"), "{message}");
    // A seat that has no car leaves; a seated one joins again.
    for (seat, placement) in [
        (7, Placement::Left),
        (1, Placement::Joined(InitialPose::default())),
    ] {
        let row = PlacedCar {
            seat,
            tick: frames[1].tick,
            placement,
        };
        let message = refused(&with(&frames[1], PLACED_KEY, row.to_row()));
        assert!(message.contains(&format!("seat {seat}")), "{message}");
    }
    // The other car's hash changed: a desync naming its seat.
    let mut wrong = frames[1].clone();
    if let Some((_, Block::Indexed(rows))) = wrong.blocks.iter_mut().find(|(k, _)| *k == HASHES_KEY)
        && let Some(row) = rows[1].1.as_mut()
        && let Value::U32(word) = &mut row[0]
    {
        *word ^= 1;
    }
    let mut c = client();
    let desync = c.on_frame(&wrong).unwrap().expect("a desync");
    assert_eq!(
        (desync.tick, desync.seats.as_slice()),
        (frames[1].tick, &[1][..])
    );
    assert!(desync.fields.is_empty(), "the player's own car is fine");
    // The true frames go on from there.
    let mut c = client();
    for frame in &frames[1..] {
        assert_eq!(c.on_frame(frame).unwrap(), None);
    }
}

/// A desync's field-level report: a client that ran another car with an
/// input the server did not (a confirmation changed on its way) finds the
/// hash of that car wrong, asks for a first shot, and names the fields of
/// the car that differ from the first shot's full state.
#[test]
fn a_desync_is_reported_field_by_field_from_the_next_first_shot() {
    use skidpad_core::CarInput;
    use skidpad_netplay::{Block, INPUTS_KEY, InputChange};

    // The client will ask again after the second frame.
    let (server, frames) = two_seat_frames(3, Some(2));
    let mut client = client_of(&server, &frames[0]);
    let mut changed = frames[1].clone();
    let full_throttle = InputChange {
        seat: 1,
        tick: changed.tick - 1,
        input: CarInput {
            throttle: 1.0,
            ..CarInput::default()
        },
    };
    changed.blocks.retain(|(k, _)| *k != INPUTS_KEY);
    changed
        .blocks
        .push((INPUTS_KEY, Block::List(vec![full_throttle.to_row()])));
    let desync = client.on_frame(&changed).unwrap().expect("a desync");
    assert_eq!(desync.seats, [1]);
    let report = client.desync_fields(&frames[2]).unwrap();
    assert_eq!(report.len(), 1, "{report:?}");
    let (car, fields) = &report[0];
    assert_eq!(*car, 1);
    assert!(
        fields.iter().any(|f| f.field.starts_with("wheel_omega")),
        "the wheels the throttle spun: {fields:?}"
    );
}

mod hostile {
    use proptest::prelude::*;
    use skidpad_core::{CarInput, InitialPose};
    use skidpad_netplay::{Block, INPUTS_KEY, InputChange, PLACED_KEY, PlacedCar, Placement};

    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            -1e3..1e3_f64,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0),
            any::<u64>().prop_map(f64::from_bits),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// Whatever a server's confirmations say (seats, ticks, inputs and
        /// poses of any bits), the client takes them or refuses them with
        /// a reason: it never panics.
        #[test]
        fn any_confirmations_are_taken_or_refused(
            inputs in prop::collection::vec((0_u8..4, 0_u32..8, prop::array::uniform6(any_f64())), 0..6),
            placed in prop::collection::vec((0_u8..4, 0_u32..8, 0_u8..3, prop::array::uniform4(any_f64())), 0..4),
            ahead in 0_u32..5,
        ) {
            let (server, frames) = super::two_seat_frames(2, None);
            let (first, second) = (&frames[0], &frames[1]);
            let mut client = super::client_of(&server, first);
            client.advance_to(first.tick + ahead).unwrap();
            let mut frame = second.clone();
            let tick = |t: u32| first.tick + t.min(3);
            let input_rows = inputs.iter().map(|(seat, t, v)| {
                InputChange { seat: *seat, tick: tick(*t), input: CarInput::from_array(*v) }.to_row()
            });
            let placed_rows = placed.iter().map(|(seat, t, what, p)| {
                let pose = InitialPose { x: p[0], y: p[1], yaw: p[2], speed: p[3] };
                let placement = match what {
                    0 => Placement::Joined(pose),
                    1 => Placement::Reset(pose),
                    _ => Placement::Left,
                };
                PlacedCar { seat: *seat, tick: tick(*t), placement }.to_row()
            });
            frame.blocks.retain(|(k, _)| *k != INPUTS_KEY && *k != PLACED_KEY);
            frame.blocks.push((INPUTS_KEY, Block::List(input_rows.collect())));
            frame.blocks.push((PLACED_KEY, Block::List(placed_rows.collect())));
            // Taken (perhaps as a desync) or refused; the next true frame
            // may be refused too, never a panic.
            let _ = client.on_frame(&frame);
        }
    }
}
