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
