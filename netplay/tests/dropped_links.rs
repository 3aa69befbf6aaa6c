//! Seats that survive a dropped link, on a live race server (a real
//! process on loopback): a player whose connection breaks without a close
//! keeps the seat for the grace, the built-in AI driving the car; signing
//! in again with the token takes the same car back where the AI brought
//! it, with a full snapshot first. Past the grace the car is gone, and a
//! player who closes the connection leaves at once, as before.

mod common;

use std::time::Duration;

use futures_util::SinkExt;
use skidpad_netplay::{Block, CARS_KEY, Channel, Frame, decode_frame, race_schema};
use tokio_tungstenite::tungstenite::Message;

use common::*;

/// The x and y of car `id` in a frame's cars block.
fn car_at(frame: &Frame, id: u32) -> Option<(f64, f64)> {
    let Some((_, Block::Indexed(cars))) = frame.blocks.iter().find(|(k, _)| *k == CARS_KEY) else {
        return None;
    };
    let (_, row) = cars.iter().find(|(car, _)| *car == id)?;
    let row = row.as_ref()?;
    Some((row[0].as_f64(), row[1].as_f64()))
}

/// Signs in and reads the welcome: the seat from the map, then the first
/// frame (a full snapshot).
async fn join(server: &Process, token: &str) -> (Socket, u64, Frame) {
    let mut ws = signed_in(server, token, None).await;
    assert_eq!(next_on(&mut ws, Channel::AuthResult).await, "null");
    let map: serde_json::Value =
        serde_json::from_str(&next_on(&mut ws, Channel::Map).await).unwrap();
    let seat = map["seat"].as_u64().expect("a seat");
    let first = decode_frame(
        &race_schema(),
        &next_bytes_on(&mut ws, Channel::FirstShot).await,
    )
    .unwrap();
    (ws, seat, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_player_comes_back_to_the_car_the_ai_kept_racing() {
    let (tokens_path, tokens) = tokens_file(2);
    let server = server(&tokens_path, 3, &[]);
    let (ann, seat, first) = join(&server, &tokens[0]).await;
    let grid = car_at(&first, 0).expect("ann's car on the grid");
    // The link breaks: no close frame, the socket just goes.
    drop(ann);
    tokio::time::sleep(Duration::from_secs_f64(2.0)).await;
    let (mut ann, again, back) = join(&server, &tokens[0]).await;
    assert_eq!(again, seat, "the same seat");
    assert!(back.tick > first.tick);
    let moved = car_at(&back, 0).expect("the same car, still in the race");
    let driven = (moved.0 - grid.0).hypot(moved.1 - grid.1);
    assert!(
        driven > 20.0,
        "the AI drove the car while ann was away: {driven:.1} m from the grid"
    );
    // Back in control: a newer frame of the same car follows.
    let next = decode_frame(
        &race_schema(),
        &next_bytes_on(&mut ann, Channel::Shot).await,
    )
    .unwrap();
    assert!(car_at(&next, 0).is_some());
    println!(
        "ann came back {:.1} s later to her car, driven {driven:.1} m by the AI",
        f64::from(back.tick - first.tick) / 60.0
    );

    // A clean close leaves at once: the seat is free for the token again,
    // with a fresh car on its grid slot (the cars block is by seat).
    ann.send(Message::Close(None)).await.unwrap();
    drop(ann);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_ann, _, fresh) = join(&server, &tokens[0]).await;
    let at = car_at(&fresh, 0).expect("a car for the seat");
    let from_grid = (at.0 - grid.0).hypot(at.1 - grid.1);
    assert!(
        from_grid < 2.0,
        "a fresh car on the grid, {from_grid:.1} m from it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_grace_the_car_is_gone() {
    let (tokens_path, tokens) = tokens_file(2);
    let server = server(&tokens_path, 3, &["--reconnect-grace-s", "1"]);
    let (ann, _, _) = join(&server, &tokens[0]).await;
    drop(ann);
    // One second of race time is a quarter second at the tests' pace.
    tokio::time::sleep(Duration::from_secs_f64(1.5)).await;
    let (_bob, _, frame) = join(&server, &tokens[1]).await;
    assert!(
        car_at(&frame, 0).is_none(),
        "ann's car left the race after the grace"
    );
    assert!(car_at(&frame, 1).is_some(), "bob's car is in it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_whose_link_dies_signs_in_again_and_finishes() {
    let (tokens_path, tokens) = tokens_file(1);
    let server = server(&tokens_path, 1, &[]);
    let mut link = link(&server, 10.0);
    let listen = link.address.clone();
    let options = bot(&link, &tokens[0], 1);
    let racing = tokio::spawn(skidpad_netplay::bot::run_bot(options));
    tokio::time::sleep(Duration::from_secs(3)).await;
    // The link process dies: the bot's socket ends with no close frame.
    link.child.kill().unwrap();
    link.child.wait().unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let _link = link_at(&server, 10.0, &listen);
    let report = racing.await.unwrap().expect("the bot's race");
    assert_eq!(report.reconnects, 1, "{report:?}");
    assert!(
        report.game_informs.iter().any(|g| g.starts_with("[2")),
        "the bot saw the finish: {:?}",
        report.game_informs
    );
    println!(
        "the bot signed in again once and finished ({} laps seen by it)",
        report.laps
    );
}
