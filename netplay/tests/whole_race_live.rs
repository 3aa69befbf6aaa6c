//! Clients that predict every car (`--predict all`'s `RaceClient`) on the
//! race server as a real process, over real WebSockets through the link
//! emulator as a real proxy (100 ms ± 20 ms each way): two bots sign in
//! asking for the confirmations, one joining a running race; each runs
//! the whole race from them and its confirmed race matches the server's
//! hashes at every frame.

mod common;

use std::time::Duration;

use skidpad_netplay::bot::{BotOptions, run_bot};
use skidpad_netplay::payloads::Prediction;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_predicting_every_car_never_desync() {
    let (tokens_path, tokens) = tokens_file(2);
    let mut server = server(&tokens_path, 1, &[]);
    let link = link(&server, 100.0);
    let options = |token: &str, name: &str| BotOptions {
        name: name.into(),
        predict: Prediction::All,
        ..bot(&link, token, 1)
    };
    let first = tokio::spawn(run_bot(options(&tokens[0], "ann")));
    tokio::time::sleep(Duration::from_secs(1)).await;
    let second = run_bot(options(&tokens[1], "bob")).await.unwrap();
    let first = first.await.unwrap().unwrap();
    for report in [&first, &second] {
        assert!(report.laps >= 1, "seat {} did no lap", report.seat);
        let race = report.race.as_ref().expect("whole-race figures");
        assert_eq!(race.desyncs, 0, "{:?}", race.last_desync);
        assert_eq!(
            report.desyncs, 0,
            "no desync on an earlier connection either"
        );
        // A lap at the race's pace: over a thousand ticks confirmed, two
        // a frame.
        assert!(race.confirmed_ticks > 1000, "{race:?}");
        assert_eq!(race.confirmed_ticks, 2 * race.frames);
        eprintln!(
            "seat {}: {} frames ({} bytes a second), {} rolled back, {} ticks again, \
             p99 correction {:.2} m (drawn {:.2} m), {} first shots asked again",
            report.seat,
            race.frames,
            report.frame_bytes as f64 / (report.frames as f64 / 30.0),
            race.rollbacks,
            race.resimulated_ticks,
            race.corrections.quantile(0.99),
            race.drawn_corrections.quantile(0.99),
            report.resyncs,
        );
    }
    server.terminate();
}

/// A player signed in with `predict: "all"`, from the raw wire: its first
/// shot has every car's state and the confirmations, a player without it
/// gets neither, and the `resync` command brings a first shot again (a
/// client that lost a frame). A `predict` of another value is refused as
/// any answer that does not read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_predicting_sign_in_gets_every_state_and_resync_sends_them_again() {
    use skidpad_netplay::{Channel, Confirmation, decode_frame, race_schema};
    use tokio_tungstenite::tungstenite::Message;

    let (tokens_path, tokens) = tokens_file(2);
    let mut server = server(&tokens_path, 1, &[]);
    let answer = |token: &str, predict: Option<&str>| {
        let mut answer = serde_json::json!({ "token": token, "name": "x" });
        if let Some(predict) = predict {
            answer["predict"] = predict.into();
        }
        let bytes =
            skidpad_netplay::payloads::message(Channel::Auth, answer.to_string().as_bytes());
        Some(Message::Binary(bytes.into()))
    };
    let mut own = signed_in(&server, &tokens[0], answer(&tokens[0], Some("own"))).await;
    let mut all = signed_in(&server, &tokens[1], answer(&tokens[1], Some("all"))).await;
    let schema = race_schema();
    let read = |bytes: Vec<u8>| Confirmation::of(&decode_frame(&schema, &bytes).unwrap()).unwrap();
    let first = read(next_bytes_on(&mut all, Channel::FirstShot).await);
    assert_eq!(first.states.len(), 2, "every car's state: {first:?}");
    assert_eq!(first.hashes.len(), 2);
    let shot = read(next_bytes_on(&mut all, Channel::Shot).await);
    assert!(shot.states.is_empty() && shot.hashes.len() == 2, "{shot:?}");
    let mine = read(next_bytes_on(&mut own, Channel::Shot).await);
    assert_eq!(
        mine,
        Confirmation::default(),
        "no confirmations without predict all"
    );
    command(&mut all, "1:down:resync").await;
    let again = read(next_bytes_on(&mut all, Channel::FirstShot).await);
    assert_eq!(again.states.len(), 2);
    // A sign-in whose predict is neither is refused, as any bad answer.
    let mut bad = signed_in(&server, &tokens[0], answer(&tokens[0], Some("some"))).await;
    let result = next_on(&mut bad, Channel::AuthResult).await;
    assert!(result.contains("unknown variant `some`"), "{result}");
    server.terminate();
}
