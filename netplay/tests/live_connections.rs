//! Connections to a live race server (a real process on loopback): kicks
//! at the latency and missed-ping thresholds, hostile clients, chat and a
//! full server, spectators.

mod common;

use std::time::Duration;

use futures_util::SinkExt;
use skidpad_core::CarInput;
use skidpad_netplay::bot::{BotOptions, run_bot};
use skidpad_netplay::payloads::{message, tech_codes};
use skidpad_netplay::{
    Block, CARS_KEY, Channel, InputMessage, PLAYER_KEY, decode_frame, race_schema,
};
use tokio_tungstenite::tungstenite::Message;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kicks_fire_at_the_latency_and_missed_ping_thresholds() {
    let (tokens_path, tokens) = tokens_file(2);
    // Pings every 300 ms (so that a 1.2 s round trip has fewer than five
    // in flight); the seed's thresholds (1 000 ms, 5 pings).
    let server = server(&tokens_path, 1, &["--ping-ms", "300"]);
    let silent = BotOptions {
        answer_pings: false,
        ..bot(&server, &tokens[0], 1)
    };
    let report = run_bot(silent).await.unwrap();
    assert_eq!(
        report.closed.as_ref().map(|c| c.0),
        Some(tech_codes::MISSED_PINGS),
        "{report:?}"
    );
    // 600 ms each way: a round trip of 1.2 s passes the 1 000 ms limit.
    let far = link(&server, 600.0);
    let report = run_bot(bot(&far, &tokens[1], 1)).await.unwrap();
    assert_eq!(
        report.closed.as_ref().map(|c| c.0),
        Some(tech_codes::LATENCY),
        "{report:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_are_refused_or_kicked_and_the_race_goes_on() {
    let (tokens_path, tokens) = tokens_file(9);
    let mut server = server(&tokens_path, 1, &[]);
    let racer = tokio::spawn(run_bot(bot(&server, &tokens[0], 1)));
    tokio::time::sleep(Duration::from_millis(500)).await;

    // No sign-in (another channel, an input, not JSON): the sign-in
    // result says why, then the 4001 says it again.
    for (first, why) in [
        (vec![0xff; 40], "not channel 255".to_owned()),
        (
            message(Channel::Input, &[0; 30]),
            format!("not channel {}", Channel::Input as u8),
        ),
        (
            message(Channel::Auth, b"token"),
            "not {token, name} JSON".to_owned(),
        ),
    ] {
        let ws = signed_in(&server, &tokens[1], Some(Message::Binary(first.into()))).await;
        let closed = closing(ws).await;
        assert_eq!(closed.code, Some(tech_codes::AUTH_FAILED), "{closed:?}");
        let said = closed.auth_error.clone().unwrap_or_default();
        assert!(said.contains(&why) && closed.reason == said, "{closed:?}");
    }
    assert_eq!(
        closed_with(signed_in(&server, "guess", None).await).await,
        Some(tech_codes::AUTH_FAILED)
    );
    assert_eq!(
        closed_with(signed_in(&server, &tokens[0], None).await).await,
        Some(tech_codes::AUTH_FAILED)
    );

    // Signed in, then: a channel players do not send, a truncated input,
    // text instead of binary.
    for (i, bad) in [
        Message::Binary(vec![99, 1, 2, 3].into()),
        Message::Binary(message(Channel::Input, &[0; 10]).into()),
        Message::Text("1:down:forward".into()),
    ]
    .into_iter()
    .enumerate()
    {
        let mut ws = signed_in(&server, &tokens[2 + i], None).await;
        ws.send(bad).await.unwrap();
        assert_eq!(
            closed_with(ws).await,
            Some(tech_codes::PROTOCOL),
            "case {i}"
        );
    }

    // A message larger than the limit is a 4005 that says so, one byte
    // over as much as 64 KiB over.
    for (size, token) in [(4097, &tokens[5]), (64 * 1024, &tokens[7])] {
        let mut ws = signed_in(&server, token, None).await;
        let _ = ws.send(Message::Binary(vec![20; size].into())).await;
        let closed = closing(ws).await;
        assert_eq!(
            closed.code,
            Some(tech_codes::PROTOCOL),
            "{size}: {closed:?}"
        );
        assert_eq!(
            closed.reason,
            format!("a message of {size} bytes, over the 4096-byte limit")
        );
    }

    // A flood of well-formed inputs: refused past the allowance, then kicked.
    let mut ws = signed_in(&server, &tokens[6], None).await;
    for seq in 1..=400_u32 {
        let input = InputMessage {
            seq,
            tick: 1,
            input: CarInput {
                throttle: 1.0,
                ..CarInput::default()
            },
        };
        if ws
            .send(Message::Binary(
                message(Channel::Input, &input.encode()).into(),
            ))
            .await
            .is_err()
        {
            break;
        }
    }
    assert_eq!(closed_with(ws).await, Some(tech_codes::FLOOD));

    // Through all of it the race went on and the racer's car was its own.
    let report = racer.await.unwrap().unwrap();
    assert_exact(&report, 1);
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reaches_everyone_and_a_full_server_says_so() {
    let (tokens_path, tokens) = tokens_file(2);
    let server = server(&tokens_path, 1, &[]);
    let mut ann = signed_in(&server, &tokens[0], None).await;
    assert_eq!(next_on(&mut ann, Channel::GameInform).await, "[1]");
    let mut bob = signed_in(&server, &tokens[1], None).await;
    assert_eq!(next_on(&mut bob, Channel::AuthResult).await, "null");
    bob.send(Message::Binary(
        message(Channel::ChatSend, "good luck".as_bytes()).into(),
    ))
    .await
    .unwrap();
    assert_eq!(
        next_on(&mut ann, Channel::Chat).await,
        r#"["good luck","x",0]"#
    );
    // Every seat taken: even a valid token is turned away as "full".
    let late = signed_in(&server, &tokens[0], None).await;
    assert_eq!(closed_with(late).await, Some(tech_codes::SERVER_FULL));
    // A chat line with a control character breaks the protocol.
    bob.send(Message::Binary(
        message(Channel::ChatSend, "bell\u{7}".as_bytes()).into(),
    ))
    .await
    .unwrap();
    assert_eq!(closed_with(bob).await, Some(tech_codes::PROTOCOL));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_watches_without_a_car_and_switches_the_player_it_follows() {
    let (tokens_path, tokens) = tokens_file(2);
    let watchers = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(watchers.path(), "watch\n").unwrap();
    let watch = watchers.path().to_str().unwrap();
    let server = server(
        &tokens_path,
        1,
        // Pings a minute apart: these raw clients do not answer them.
        &[
            "--spectator-tokens",
            watch,
            "--max-spectators",
            "2",
            "--ping-ms",
            "60000",
        ],
    );
    let mut ann = signed_in(&server, &tokens[0], None).await;
    assert_eq!(next_on(&mut ann, Channel::GameInform).await, "[1]");
    let mut bob = signed_in(&server, &tokens[1], None).await;
    assert_eq!(next_on(&mut bob, Channel::GameInform).await, "[1]");

    let mut eve = signed_in(&server, "watch", None).await;
    assert_eq!(next_on(&mut eve, Channel::AuthResult).await, "null");
    let map: serde_json::Value =
        serde_json::from_str(&next_on(&mut eve, Channel::Map).await).unwrap();
    assert!(map["seat"].is_null(), "a spectator has no seat: {map}");
    assert_eq!(next_on(&mut eve, Channel::GameInform).await, "[1]");
    // Frames of both cars, first shot first, and no player block (no car
    // to predict).
    let schema = race_schema();
    let first = decode_frame(&schema, &next_bytes_on(&mut eve, Channel::FirstShot).await).unwrap();
    let next = decode_frame(&schema, &next_bytes_on(&mut eve, Channel::Shot).await).unwrap();
    assert!(next.tick > first.tick);
    for frame in [&first, &next] {
        let keys: Vec<u8> = frame.blocks.iter().map(|(k, _)| *k).collect();
        assert!(!keys.contains(&PLAYER_KEY), "{keys:?}");
        let Some((_, Block::Indexed(cars))) = frame.blocks.iter().find(|(k, _)| *k == CARS_KEY)
        else {
            panic!("no cars block: {keys:?}");
        };
        let ids: Vec<u32> = cars.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [0, 1]);
    }
    // It follows the first seat (its first panel went by with the first
    // frames), and seed 001's key commands switch: the next after seat 0
    // is 1, then it wraps.
    command(&mut eve, "1:down:nextPlayer").await;
    panel_until(&mut eve, "f:1").await;
    command(&mut eve, "2:down:nextPlayer").await;
    panel_until(&mut eve, "f:0").await;
    command(&mut eve, "3:down:prevPlayer").await;
    panel_until(&mut eve, "f:1").await;
    // The followed player leaves: the spectator follows the next one.
    drop(bob);
    panel_until(&mut eve, "f:0").await;

    // The room for spectators is bounded; a spectator sends no inputs.
    let mut second = signed_in(&server, "watch", None).await;
    assert_eq!(next_on(&mut second, Channel::AuthResult).await, "null");
    let third = signed_in(&server, "watch", None).await;
    assert_eq!(closed_with(third).await, Some(tech_codes::SERVER_FULL));
    let input = InputMessage {
        seq: 1,
        tick: 1,
        input: CarInput::default(),
    };
    second
        .send(Message::Binary(
            message(Channel::Input, &input.encode()).into(),
        ))
        .await
        .unwrap();
    assert_eq!(closed_with(second).await, Some(tech_codes::PROTOCOL));
    // The player raced on through it.
    assert!(!next_on(&mut ann, Channel::Shot).await.is_empty());
}
