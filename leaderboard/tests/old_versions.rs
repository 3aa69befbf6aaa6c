//! Runs recorded by older simulation versions: a run verified when its
//! version was current keeps its rank after the core moves on, an operator
//! can re-verify it on demand (in its archived core), and `GET /versions`
//! counts the runs each version holds.

mod common;

use std::time::Duration;

use common::{Service, sqlite_url};
use serde_json::Value;
use skidpad_leaderboard::outcome::{Outcome, Verified};

fn golden(version: u32, name: &str) -> Vec<u8> {
    std::fs::read(format!("../golden/v{version}/{name}")).unwrap()
}

/// The world hash `golden/v<version>/HASHES` pins at the end of `name`.
fn pinned_final(version: u32, name: &str) -> String {
    let hashes = String::from_utf8(golden(version, "HASHES")).unwrap();
    hashes
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} final ")))
        .unwrap()
        .to_owned()
}

/// Stores the verdict a server of that version would have written.
async fn judged_long_ago(service: &Service, id: &str, player: &str, final_hash: String) {
    let claim = service
        .store
        .claim("an-older-server", Duration::from_secs(30), 3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claim.run_id, id);
    let outcome = Outcome::Verified(Box::new(Verified {
        track: "brandwood".into(),
        class: "rwd_sports".into(),
        player: player.into(),
        car: 0,
        steps: 4800,
        duration: 80.0,
        final_hash,
        laps: Vec::new(),
        best_lap: Some(if player == "ada" { 61.25 } else { 62.5 }),
        flags: Vec::new(),
        sealed_by: None,
        taken_over: None,
        rewinds: None,
        best_lap_ghost: None,
    }));
    assert!(
        service
            .store
            .finish(id, "an-older-server", &outcome)
            .await
            .unwrap()
    );
}

async fn reverify(service: &Service, id: &str) -> (u16, Value) {
    let admin = service.store.issue_token("operator", true).await.unwrap();
    let response = reqwest::Client::new()
        .post(format!("{}/runs/{id}/reverify", service.base))
        .bearer_auth(admin)
        .send()
        .await
        .unwrap();
    let code = response.status().as_u16();
    (code, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_verified_runs_stay_ranked_and_re_verify_in_their_archived_cores() {
    let dir = tempfile::tempdir().unwrap();
    // No workers: the verdicts below are the ones older servers wrote.
    let service = Service::start(&sqlite_url(dir.path()), 0).await;

    let (code, v3) = service.submit_as("ada", golden(3, "flat_lap.skr")).await;
    assert_eq!(code, 202, "{v3}");
    let v3 = v3["id"].as_str().unwrap().to_owned();
    judged_long_ago(&service, &v3, "ada", pinned_final(3, "flat_lap.skr")).await;

    // A stored verdict whose hash the re-simulation cannot reach.
    let (_, v2) = service.submit_as("bob", golden(2, "flat_lap.skr")).await;
    let v2 = v2["id"].as_str().unwrap().to_owned();
    judged_long_ago(&service, &v2, "bob", "00".repeat(32)).await;

    let current = skidpad_core::SIMULATION_VERSION;
    let (_, now) = service.submit(golden(current, "flat_lap.skr")).await;
    let now = now["id"].as_str().unwrap().to_owned();

    let (code, board) = service.get("/leaderboards/brandwood/rwd_sports").await;
    assert_eq!(code, 200);
    let players: Vec<&str> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player"].as_str().unwrap())
        .collect();
    assert_eq!(players, ["ada", "bob"], "{board}");

    let (code, body) = reverify(&service, &v3).await;
    assert_eq!(code, 200, "{body}");
    let found = &body["reverification"];
    assert_eq!(found["core"], "simulation version 3 (archived)");
    assert_eq!(found["desyncs"], 0);
    assert_eq!(found["steps"], 4800);
    assert_eq!(
        found["final_hash"],
        pinned_final(3, "flat_lap.skr").as_str()
    );
    assert_eq!(found["agrees"], true, "{body}");

    let (_, body) = reverify(&service, &v2).await;
    let found = &body["reverification"];
    assert_eq!(found["core"], "simulation version 2 (archived)");
    assert_eq!(found["desyncs"], 0);
    assert_eq!(
        found["agrees"], false,
        "the stored hash is not what v2 computes: {body}"
    );

    let (_, body) = reverify(&service, &now).await;
    let found = &body["reverification"];
    assert_eq!(
        found["core"],
        format!("simulation version {current} (native)")
    );
    assert_eq!(found["agrees"], Value::Null, "pending: nothing to compare");

    let (code, _) = reverify(&service, &"ab".repeat(32)).await;
    assert_eq!(code, 404);

    let (code, versions) = service.get("/versions").await;
    assert_eq!(code, 200);
    assert_eq!(versions["current"], current);
    let row = |v: u32| {
        versions["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["simulation_version"] == v)
            .cloned()
            .unwrap_or_else(|| panic!("no row for version {v}: {versions}"))
    };
    assert_eq!(
        (row(3)["runs"].clone(), row(3)["verified"].clone()),
        (1.into(), 1.into())
    );
    assert_eq!(row(3)["core"], "archived");
    assert_eq!(row(2)["core"], "archived");
    assert_eq!(
        (
            row(current)["pending"].clone(),
            row(current)["core"].clone()
        ),
        (1.into(), "native".into())
    );
    service.stop().await;
}
