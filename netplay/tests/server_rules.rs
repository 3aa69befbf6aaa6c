//! The server's rules for seats and inputs, and the client messages'
//! codecs: a hostile or confused client is refused, and a refusal changes
//! nothing, least of all another player's car.

use proptest::prelude::*;
use skidpad_core::{CarInput, WorldConfig};
use skidpad_netplay::{
    Block, Channel, Command, InputMessage, KeyAction, NetClient, NetError, PLAYER_KEY, PlayerRow,
    RaceConfig, RaceServer, RemovalReason, SeatId, decode_frame,
};

fn server(seats: usize) -> RaceServer {
    RaceServer::new(RaceConfig {
        seat_tokens: (0..seats).map(|i| format!("token-{i}")).collect(),
        ..RaceConfig::default()
    })
    .unwrap()
}

fn throttle(seq: u32, tick: u32) -> InputMessage {
    InputMessage {
        seq,
        tick,
        input: CarInput {
            throttle: 0.5,
            ..CarInput::default()
        },
    }
}

fn refused(result: Result<impl std::fmt::Debug, NetError>, says: &str) {
    match result {
        Err(NetError::Refused { reason }) => {
            assert!(reason.contains(says), "{reason:?} does not say {says:?}")
        }
        other => panic!("expected a refusal saying {says:?}, got {other:?}"),
    }
}

#[test]
fn a_seat_needs_its_token_and_is_taken_once() {
    let mut race = server(2);
    refused(race.join("", "anon"), "no seat has this token");
    refused(race.join("token-9", "anon"), "no seat has this token");
    let seat = race.join("token-1", "ann").unwrap();
    assert_eq!(seat, SeatId(1), "the token names the seat");
    refused(race.join("token-1", "bob"), "taken");
    race.leave(seat, RemovalReason::Left).unwrap();
    refused(race.leave(seat, RemovalReason::Left), "empty");
    assert_eq!(
        race.join("token-1", "bob").unwrap(),
        seat,
        "a seat left is free again"
    );
}

#[test]
fn inputs_are_refused_out_of_order_too_far_ahead_in_a_flood_or_for_an_empty_seat() {
    let mut race = server(2);
    let seat = race.join("token-0", "ann").unwrap();
    race.input(seat, throttle(5, 1)).unwrap();
    refused(race.input(seat, throttle(5, 2)), "does not follow 5");
    refused(race.input(seat, throttle(4, 2)), "does not follow 5");
    refused(
        race.input(seat, throttle(6, 62)),
        "more than 60 ticks ahead",
    );
    refused(race.input(SeatId(1), throttle(1, 1)), "seat 1 is empty");
    refused(race.input(SeatId(200), throttle(1, 1)), "seat 200 is empty");
    // A flood: the allowance is 120 inputs at once (the one above among
    // them), then two a tick.
    for seq in 6..125 {
        race.input(seat, throttle(seq, 2)).unwrap();
    }
    refused(race.input(seat, throttle(125, 3)), "a flood");
    race.step().unwrap();
    race.input(seat, throttle(126, 3)).unwrap();
    race.input(seat, throttle(127, 3)).unwrap();
    refused(race.input(seat, throttle(128, 3)), "a flood");
    assert_eq!(race.stats().refused_inputs, 7);
}

/// Found by an outside client written from FORMAT.md: seq 0 (which means
/// "none") was applied, and so were fields far past every input's range
/// (a float's bits, a NaN's among them, written into the fixed-point
/// field); a short input's reason named a snapshot frame.
#[test]
fn seq_zero_and_values_past_the_wire_range_are_refused_and_said_plainly() {
    let mut race = server(1);
    let seat = race.join("token-0", "ann").unwrap();
    refused(race.input(seat, throttle(0, 1)), "input seq 0 means none");
    let mut payload = throttle(1, 1).encode();
    // The steer field holds a NaN's f32 bits, read as fixed point.
    payload[8..12].copy_from_slice(&f32::NAN.to_bits().to_be_bytes());
    let nan = InputMessage::decode(&payload).unwrap();
    refused(race.input(seat, nan), "input steer");
    let mut far = throttle(1, 1);
    far.input.brake = 2.5;
    refused(
        race.input(seat, far),
        "input brake 2.5 is past the wire's ±2",
    );
    race.input(seat, throttle(1, 1)).unwrap();
    assert_eq!(race.stats().refused_inputs, 3);
    // The seat's own count, for the log line when its player leaves.
    assert_eq!(race.seat_stats(seat).unwrap().refused_inputs, 3);
    refused(race.input(SeatId(0), throttle(0, 1)), "seq 0");
    assert_eq!(race.seat_stats(seat).unwrap().refused_inputs, 4);
    let short = InputMessage::decode(&payload[..10])
        .unwrap_err()
        .to_string();
    assert_eq!(
        short,
        "input message, byte 10: 10 bytes where an input has 29"
    );
    let command = Command::parse("7:sideways:forward")
        .unwrap_err()
        .to_string();
    assert!(command.starts_with("command, byte 0: "), "{command}");
}

#[test]
fn an_input_applies_at_its_tick_or_late_at_the_next_and_is_acknowledged() {
    let mut race = server(1);
    let seat = race.join("token-0", "ann").unwrap();
    let car = race.car_of(seat).unwrap();
    race.input(seat, throttle(1, 3)).unwrap();
    race.step().unwrap();
    let first = race.step().unwrap();
    assert!(
        first[0].first_shot,
        "the seat's first frame bypasses interpolation"
    );
    assert_eq!(
        race.world().input(car).unwrap().throttle,
        0.0,
        "not before its tick"
    );
    let frames = race.step().unwrap(); // tick 3... not a frame tick (every 2)
    assert!(frames.is_empty());
    assert_eq!(race.world().input(car).unwrap().throttle, 0.5);
    // Late: asked for tick 2, arrives at tick 3, applies at tick 4.
    race.input(
        seat,
        InputMessage {
            seq: 2,
            tick: 2,
            input: CarInput {
                throttle: 0.25,
                ..CarInput::default()
            },
        },
    )
    .unwrap();
    let frames = race.step().unwrap();
    assert_eq!(race.stats().late_inputs, 1);
    assert_eq!(frames.len(), 1);
    assert!(!frames[0].first_shot);
    let frame = decode_frame(race.schema(), &frames[0].frame).unwrap();
    assert_eq!(frame.tick, 4);
    let Some(Block::Indexed(rows)) = frame.block(race.schema(), "player") else {
        panic!("no player block")
    };
    let player = PlayerRow::from_row(rows[0].1.as_ref().unwrap()).unwrap();
    assert_eq!(
        (player.last_input_seq, player.input_tick, player.input_wait),
        (2, 4, 0)
    );
    assert_eq!(player.state, race.world().snapshot(car).unwrap());
    assert!(frame.blocks.iter().any(|(k, _)| *k == PLAYER_KEY));
}

#[test]
fn another_players_refused_input_never_touches_my_car() {
    let mut race = server(2);
    let me = race.join("token-0", "me").unwrap();
    let other = race.join("token-1", "other").unwrap();
    race.input(me, throttle(1, 1)).unwrap();
    // The other player floods, replays my seq numbers, aims far ahead.
    for seq in 0..200 {
        let _ = race.input(
            other,
            InputMessage {
                seq: seq % 3,
                tick: 10_000,
                input: CarInput {
                    brake: 1.0,
                    ..CarInput::default()
                },
            },
        );
    }
    race.step().unwrap();
    let mine = race.car_of(me).unwrap();
    let input = race.world().input(mine).unwrap();
    assert_eq!((input.throttle, input.brake), (0.5, 0.0));
}

#[test]
fn a_player_who_leaves_is_gone_from_the_next_frame() {
    let mut race = server(2);
    let a = race.join("token-0", "a").unwrap();
    let b = race.join("token-1", "b").unwrap();
    race.step().unwrap();
    race.step().unwrap();
    race.leave(b, RemovalReason::Kicked).unwrap();
    race.step().unwrap();
    let frames = race.step().unwrap();
    assert_eq!(frames.len(), 1, "only the seated player gets frames");
    assert_eq!(frames[0].seat, a);
    let frame = decode_frame(race.schema(), &frames[0].frame).unwrap();
    let Some(Block::Indexed(cars)) = frame.block(race.schema(), "cars") else {
        panic!("no cars")
    };
    assert!(
        cars.contains(&(1, None)),
        "hasData 0 for the seat that left: {cars:?}"
    );
    let Some(Block::List(removed)) = frame.block(race.schema(), "removed") else {
        panic!("no removal event")
    };
    assert_eq!(
        removed[0],
        vec![
            skidpad_netplay::Value::U8(1),
            skidpad_netplay::Value::U8(RemovalReason::Kicked as u8)
        ]
    );
    // Events go out once.
    race.step().unwrap();
    let bytes = race.step().unwrap().remove(0).frame;
    let next = decode_frame(race.schema(), &bytes).unwrap();
    assert!(next.block(race.schema(), "removed").is_none());
}

#[test]
fn a_spectators_frame_is_made_only_while_the_race_is_watched() {
    let mut race = server(1);
    let a = race.join("token-0", "a").unwrap();
    let frame_ticks = race.config().ticks_per_frame;
    // Steps to the next frame tick; the seats that got a frame there.
    let run_one_frame = |race: &mut RaceServer| {
        let mut seats = Vec::new();
        for _ in 0..frame_ticks {
            seats = race
                .step()
                .unwrap()
                .into_iter()
                .map(|out| out.seat)
                .collect();
        }
        seats
    };
    run_one_frame(&mut race);
    let watched = decode_frame(
        race.schema(),
        race.watch_frame().expect("watched by default"),
    )
    .unwrap();
    assert!(watched.block(race.schema(), "cars").is_some());
    assert!(
        watched.block(race.schema(), "player").is_none(),
        "no player block"
    );
    race.set_watched(false);
    assert!(race.watch_frame().is_none(), "the last one is dropped");
    assert_eq!(
        run_one_frame(&mut race),
        vec![a],
        "the player's frame goes on"
    );
    assert!(race.watch_frame().is_none(), "none made unwatched");
    race.set_watched(true);
    run_one_frame(&mut race);
    let again = decode_frame(race.schema(), race.watch_frame().unwrap()).unwrap();
    assert_eq!(again.tick, race.tick());
}

#[test]
fn commands_parse_as_the_seed_writes_them() {
    let c = Command::parse("7:down:nextPlayer").unwrap();
    assert_eq!(
        c,
        Command {
            seq: 7,
            action: KeyAction::Down,
            name: "nextPlayer".into()
        }
    );
    assert_eq!(c.to_text(), "7:down:nextPlayer");
    for bad in [
        "",
        "7",
        "7:down",
        "7:press:x",
        "-1:up:x",
        "+1:up:x",
        "7:up:",
        "7:up:a:b",
        "99999999999:up:x",
        "7:up:next player",
    ] {
        assert!(Command::parse(bad).is_err(), "{bad:?} parsed");
    }
    assert!(Command::parse(&format!("1:up:{}", "a".repeat(33))).is_err());
    assert_eq!(Channel::from_byte(5), Some(Channel::Shot));
    assert_eq!(Channel::from_byte(9), None);
}

proptest! {
    /// An input message carries the core's input grid exactly, and any 29
    /// bytes decode to something the server can check.
    #[test]
    fn input_messages_round_trip_on_the_grid(
        seq in any::<u32>(), tick in any::<u32>(),
        steer in -1.0f64..=1.0, pedal in 0.0f64..=1.0, gear in -1i32..=6,
        bytes in prop::array::uniform29(any::<u8>()),
    ) {
        let input = CarInput { steer, throttle: pedal, brake: 1.0 - pedal, gear: f64::from(gear), ..CarInput::default() }
            .sanitized(6)
            .unwrap();
        let message = InputMessage { seq, tick, input };
        prop_assert_eq!(InputMessage::decode(&message.encode()).unwrap(), message);
        let any = InputMessage::decode(&bytes).unwrap();
        prop_assert!(any.input.to_array().iter().all(|v| v.is_finite()));
        prop_assert!(InputMessage::decode(&bytes[..28]).is_err());
    }

    /// Any text is a command or an error, never a panic, and a command
    /// reads back from its own text.
    #[test]
    fn any_text_is_a_command_or_an_error(text in ".{0,60}", seq in any::<u32>(), name in "[a-zA-Z0-9]{1,32}") {
        if let Ok(command) = Command::parse(&text) {
            prop_assert_eq!(Command::parse(&command.to_text()).unwrap(), command);
        }
        let made = Command { seq, action: KeyAction::Up, name };
        prop_assert_eq!(Command::parse(&made.to_text()).unwrap(), made);
    }

    /// Any stream of input messages leaves the server running, each one
    /// applied or refused; a refused one changes no car.
    #[test]
    fn any_inputs_are_applied_or_refused(messages in prop::collection::vec(prop::array::uniform29(any::<u8>()), 1..40)) {
        let mut race = server(1);
        let seat = race.join("token-0", "fuzz").unwrap();
        let car = race.car_of(seat).unwrap();
        for bytes in &messages {
            let before = race.world().snapshot(car).unwrap();
            let message = InputMessage::decode(bytes).unwrap();
            if race.input(seat, message).is_err() {
                prop_assert_eq!(race.world().snapshot(car).unwrap(), before);
            }
            race.step().unwrap();
        }
        prop_assert_eq!(race.tick() as usize, messages.len());
    }
}

#[test]
fn a_client_holds_at_the_servers_input_lead_past_its_newest_state() {
    let mut race = server(1);
    let seat = race.join("token-0", "ann").unwrap();
    race.step().unwrap();
    let first = race.step().unwrap();
    let frame = decode_frame(race.schema(), &first[0].frame).unwrap();
    let def = skidpad_core::preset(&race.config().car).unwrap();
    let mut client = NetClient::new(
        WorldConfig::default(),
        race.world().ground().clone(),
        &def,
        race.dt(),
        &frame,
    )
    .unwrap();
    let lead = race.config().max_input_lead;
    client.set_max_input_lead(lead);
    // The server stalls (no frame comes): the client predicts up to the
    // lead and then holds, so each input it sent is one the server takes.
    let mut sent = Vec::new();
    for _ in 0..10 * lead {
        for _ in 0..client.ticks_due() {
            sent.push(client.drive(CarInput::default()).unwrap());
        }
    }
    assert_eq!(client.tick() - client.server_tick(), lead);
    for message in &sent {
        race.input(seat, *message).unwrap();
    }
    assert_eq!(race.stats().refused_inputs, 0);
    // The server moves on: the client does too.
    let mut frames = Vec::new();
    while frames.is_empty() {
        frames = race.step().unwrap();
    }
    let newer = decode_frame(race.schema(), &frames[0].frame).unwrap();
    client.on_frame(&newer).unwrap();
    assert!(client.ticks_due() > 0);
}

#[test]
fn the_reset_interval_is_the_races_and_is_checked() {
    for bad in [f64::NAN, -1.0, 601.0, f64::INFINITY] {
        refused(
            RaceServer::new(RaceConfig {
                seat_tokens: vec!["token-0".into()],
                reset_interval_s: bad,
                ..RaceConfig::default()
            })
            .map(|race| race.tick()),
            "reset_interval_s is 0 to 600",
        );
    }
    // Half a second at 60 Hz: 30 ticks between two resets of one car.
    let mut race = RaceServer::new(RaceConfig {
        seat_tokens: vec!["token-0".into()],
        reset_interval_s: 0.5,
        ..RaceConfig::default()
    })
    .unwrap();
    let seat = race.join("token-0", "ann").unwrap();
    assert!(race.ask_reset(seat));
    assert!(!race.ask_reset(seat), "one reset asked at a time");
    // The reset is made at tick 1; the next may be asked from tick 31.
    race.step().unwrap();
    while race.tick() < 31 {
        assert!(!race.ask_reset(seat), "within the interval");
        race.step().unwrap();
    }
    assert!(race.ask_reset(seat), "30 ticks after the last");
}
