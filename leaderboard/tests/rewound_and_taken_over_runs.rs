//! Runs taken over from another run (`skidpad_replay::TakeOver`) against a
//! real service: a board ranks only whole runs and refuses them at the
//! door, 422 saying why; a board marked `"practice": true` verifies and
//! ranks them; a service without a boards file has no practice board.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{DT, Service};
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_leaderboard::boards::Boards;
use skidpad_replay::{Limits, RecorderOptions, ReplayRecorder, TakeOver, encode_replay};

/// One AI hatchback on `track`'s surface for `steps`, then taken over at
/// half way and driven on by the AI for as long again: the taken-over
/// run's bytes.
fn taken_over_run(track: &str, steps: u64) -> Vec<u8> {
    let track = Arc::new(Track::builtin(track).unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    let pose = skidpad_core::race::pose_along(&track, 30.0, 0.0, 15.0);
    let car = world
        .add_car(&preset("fwd_hatchback").unwrap(), pose)
        .unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    let options = RecorderOptions {
        track: Some(track.clone()),
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..steps {
        recorder.step(&mut world, DT).unwrap();
    }
    let source = Arc::new(recorder.finish(&world).unwrap());
    let mut run = TakeOver::new(source, steps / 2, 0, &Limits::default()).unwrap();
    let me = run.player();
    run.world_mut().set_driver(me, Some(track)).unwrap();
    let mut options = run.recorder_options();
    options.metadata.push(("player".into(), "taker".into()));
    let mut recorder = ReplayRecorder::new(run.world(), options).unwrap();
    for _ in 0..steps {
        run.step(&mut recorder, DT).unwrap();
    }
    encode_replay(&recorder.finish(run.world()).unwrap()).unwrap()
}

fn boards(dir: &Path) -> Arc<Boards> {
    let text = r#"[{"track": "brandwood", "max_steps": 20000},
                   {"track": "hillcrest", "max_steps": 20000, "practice": true}]"#;
    Arc::new(Boards::from_json(text, dir).unwrap())
}

async fn take_overs_rank_only_on_practice_boards(database: &str, dir: &Path) {
    let service = Service::start_with(database, 1, Some(boards(dir))).await;
    let (code, body) = service.submit(taken_over_run("brandwood", 600)).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        body.to_string().contains("taken over from another run"),
        "{body}"
    );
    assert!(body.to_string().contains("practice"), "{body}");

    let (code, body) = service.submit(taken_over_run("hillcrest", 600)).await;
    assert_eq!(code, 202, "{body}");
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");
    // The verdict says where the run began.
    assert_eq!(verdict["outcome"]["taken_over"]["step"], 300, "{verdict}");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_overs_rank_only_on_practice_boards_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let database = common::sqlite_url(dir.path());
    take_overs_rank_only_on_practice_boards(&database, dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_overs_rank_only_on_practice_boards_on_postgres() {
    let Some(database) = common::postgres_database("take_over_runs").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    take_overs_rank_only_on_practice_boards(&database, dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_boards_file_a_take_over_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start_with(&common::sqlite_url(dir.path()), 1, None).await;
    let (code, body) = service.submit(taken_over_run("brandwood", 300)).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        body.to_string().contains("no board is a practice board"),
        "{body}"
    );
    service.stop().await;
}

/// One AI hatchback lapping brandwood from the grid, the player rewinding
/// twice on the way: the run's bytes.
fn rewound_run() -> Vec<u8> {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    let car = world
        .add_car(
            &preset("fwd_hatchback").unwrap(),
            skidpad_core::race::grid_pose(&track, 0, &skidpad_core::race::GridLayout::default()),
        )
        .unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    let options = RecorderOptions {
        track: Some(track),
        metadata: vec![("player".into(), "rewinder".into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for back in [120, 60] {
        for _ in 0..300 {
            recorder.step(&mut world, DT).unwrap();
        }
        let to = recorder.step_count() - back;
        recorder.rewind(&mut world, to).unwrap();
    }
    // On to a whole lap from the grid.
    for _ in 0..5_000 {
        recorder.step(&mut world, DT).unwrap();
    }
    encode_replay(&recorder.finish(&world).unwrap()).unwrap()
}

/// A board refuses a rewound run by default, saying how many rewinds it
/// used; one with `"rewinds": "unranked"` verifies it and shows them, and
/// ranks nothing for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewound_runs_are_refused_or_kept_unranked_as_the_board_says() {
    for (policy, status) in [("", "rejected"), (r#", "rewinds": "unranked""#, "verified")] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(r#"[{{"track": "brandwood", "max_steps": 20000{policy}}}]"#);
        let boards = Arc::new(Boards::from_json(&text, dir.path()).unwrap());
        let service = Service::start_with(&common::sqlite_url(dir.path()), 1, Some(boards)).await;
        let (code, body) = service.submit(rewound_run()).await;
        assert_eq!(code, 202, "{body}");
        let verdict = service.verdict(body["id"].as_str().unwrap()).await;
        assert_eq!(verdict["status"], status, "{verdict}");
        if status == "rejected" {
            let said = verdict["outcome"]["reason"]["message"].to_string();
            assert!(said.contains("rewound 2 times"), "{verdict}");
        } else {
            assert_eq!(verdict["outcome"]["rewinds"]["count"], 2, "{verdict}");
            // A lap it would rank, if it ranked rewound runs.
            assert!(verdict["outcome"]["best_lap"].is_number(), "{verdict}");
            let (code, board) = service.get("/leaderboards/brandwood/fwd_hatchback").await;
            assert_eq!(code, 200);
            assert_eq!(
                board["entries"].as_array().map(Vec::len),
                Some(0),
                "{board}"
            );
        }
        service.stop().await;
    }
}
