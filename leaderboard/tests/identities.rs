//! Who may submit and who may moderate, against the binary on 127.0.0.1:
//! uploads need a player's token, a run ranks under its submitter's name
//! and no other, names are claimed once, admins delete runs and ban
//! players, revoked tokens stop working, one player's unfinished runs are
//! capped; and the queue is fair between submitters, on SQLite and
//! PostgreSQL.

mod common;

use std::time::Duration;

use common::{
    ONE_LAP_STEPS, TESTER, issue_token, postgres_database, record, sqlite_url, start_binary,
    wait_for,
};
use serde_json::{Value, json};
use skidpad_leaderboard::store::{Store, Submitted};
use skidpad_replay::encode_replay;

/// A client of the binary at `base`.
struct Client {
    base: String,
    http: reqwest::Client,
}

impl Client {
    fn new(address: &str) -> Client {
        Client {
            base: format!("http://{address}"),
            http: reqwest::Client::new(),
        }
    }

    /// Sends `method path` with `token` (if any) and `body`: (code, JSON
    /// body, the `WWW-Authenticate` or `Retry-After` header if any).
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Body,
    ) -> (u16, Value, Option<String>) {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request = match body {
            Body::None => request,
            Body::Bytes(bytes) => request.body(bytes),
            Body::Json(value) => request.json(&value),
        };
        let response = request.send().await.unwrap();
        let code = response.status().as_u16();
        let header = ["www-authenticate", "retry-after"]
            .iter()
            .find_map(|h| response.headers().get(*h))
            .map(|v| v.to_str().unwrap().to_owned());
        (code, response.json().await.unwrap_or(Value::Null), header)
    }

    async fn upload(&self, token: Option<&str>, bytes: &[u8]) -> (u16, Value, Option<String>) {
        self.send(
            reqwest::Method::POST,
            "/runs",
            token,
            Body::Bytes(bytes.to_vec()),
        )
        .await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let (code, body, _) = self
            .send(reqwest::Method::GET, path, None, Body::None)
            .await;
        (code, body)
    }

    async fn sign_up(&self, name: &str) -> (u16, Value) {
        let (code, body, _) = self
            .send(
                reqwest::Method::POST,
                "/players",
                None,
                Body::Json(json!({ "name": name })),
            )
            .await;
        (code, body)
    }

    async fn verdict(&self, id: &str) -> Value {
        wait_for(Duration::from_secs(600), || async {
            let (code, body) = self.get(&format!("/runs/{id}")).await;
            assert_eq!(code, 200, "{body}");
            (body["status"] != "pending").then_some(body)
        })
        .await
    }

    async fn board(&self) -> Vec<String> {
        let (code, body) = self.get("/leaderboards/brandwood/rwd_sports").await;
        assert_eq!(code, 200, "{body}");
        body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["player"].as_str().unwrap().to_owned())
            .collect()
    }
}

enum Body {
    None,
    Bytes(Vec<u8>),
    Json(Value),
}

fn replay_of(player: Option<&str>, steps: u64) -> Vec<u8> {
    let metadata: Vec<(&str, &str)> = player.map(|p| ("player", p)).into_iter().collect();
    encode_replay(&record("rwd_sports", steps, &metadata)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_rank_under_their_submitter_and_admins_moderate() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, address) = start_binary(dir.path(), &["--upload-burst", "0"]);
    let client = Client::new(&address);
    let lap = replay_of(Some("alice"), ONE_LAP_STEPS);

    // No token, or a made-up one: 401 naming the scheme.
    for token in [None, Some("skp_0000")] {
        let (code, body, challenge) = client.upload(token, &lap).await;
        assert_eq!(code, 401, "{body}");
        assert!(challenge.unwrap().starts_with("Bearer"));
    }

    // A name is claimed once, in any ASCII case.
    let (code, alice) = client.sign_up("alice").await;
    assert_eq!(code, 201, "{alice}");
    let alice = alice["token"].as_str().unwrap().to_owned();
    assert!(alice.starts_with("skp_"));
    assert_eq!(client.sign_up("ALICE").await.0, 409);
    assert_eq!(client.sign_up("bad/name").await.0, 400);
    let (code, me, _) = client
        .send(
            reqwest::Method::GET,
            "/players/me",
            Some(&alice),
            Body::None,
        )
        .await;
    assert_eq!((code, &me["player"]), (200, &json!("alice")), "{me}");
    let (_, mallory) = client.sign_up("mallory").await;
    let mallory = mallory["token"].as_str().unwrap().to_owned();

    // Mallory cannot post alice's run as hers, nor claim alice's bytes.
    let (code, body, _) = client.upload(Some(&mallory), &lap).await;
    assert_eq!(code, 403, "{body}");
    assert!(body["error"].as_str().unwrap().contains("alice"), "{body}");
    let (code, posted, _) = client.upload(Some(&alice), &lap).await;
    assert_eq!(code, 202, "{posted}");
    let id = posted["id"].as_str().unwrap().to_owned();
    assert_eq!(client.upload(Some(&alice), &lap).await.0, 200);
    let unnamed = replay_of(None, 120);
    let (code, body, _) = client.upload(Some(&mallory), &unnamed).await;
    assert_eq!(code, 202, "{body}");
    let mallorys = body["id"].as_str().unwrap().to_owned();
    assert_eq!(client.upload(Some(&alice), &unnamed).await.0, 409);

    let run = client.verdict(&id).await;
    assert_eq!(run["status"], "verified", "{run}");
    assert_eq!(run["submitter"], "alice");
    assert_eq!(run["outcome"]["player"], "alice");
    // A replay naming no player is the submitter's.
    let run = client.verdict(&mallorys).await;
    assert_eq!(run["outcome"]["player"], "mallory", "{run}");
    assert_eq!(client.board().await, ["alice"]);

    // Moderation needs an admin token.
    let admin = issue_token(dir.path(), "operator", true);
    let ban = |token: String| {
        let client = &client;
        async move {
            client
                .send(
                    reqwest::Method::POST,
                    "/players/alice/ban",
                    Some(&token),
                    Body::Json(json!({ "reason": "test" })),
                )
                .await
                .0
        }
    };
    assert_eq!(ban(mallory.clone()).await, 403);
    assert_eq!(ban(admin.clone()).await, 200);
    assert!(client.board().await.is_empty(), "a banned player ranks");
    let (code, body, _) = client.upload(Some(&alice), &replay_of(None, 60)).await;
    assert_eq!(code, 403, "{body}");
    assert!(body["error"].as_str().unwrap().contains("banned"), "{body}");
    let (code, ..) = client
        .send(
            reqwest::Method::DELETE,
            "/players/alice/ban",
            Some(&admin),
            Body::None,
        )
        .await;
    assert_eq!(code, 200);
    assert_eq!(client.board().await, ["alice"]);

    // Deleting a run takes it off the board and the API.
    let path = format!("/runs/{id}");
    let delete = |token: String| {
        let (client, path) = (&client, &path);
        async move {
            client
                .send(reqwest::Method::DELETE, path, Some(&token), Body::None)
                .await
                .0
        }
    };
    assert_eq!(delete(alice.clone()).await, 403);
    assert_eq!(delete(admin.clone()).await, 200);
    assert_eq!(client.get(&path).await.0, 404);
    assert_eq!(client.get(&format!("{path}/replay")).await.0, 404);
    assert!(client.board().await.is_empty());

    // A revoked token is refused at once.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args(["token", "revoke", "--player", "mallory"])
        .args(["--database", &sqlite_url(dir.path())])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        client.upload(Some(&mallory), &replay_of(None, 61)).await.0,
        401
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_players_unfinished_runs_are_capped_and_sign_up_can_be_closed() {
    let dir = tempfile::tempdir().unwrap();
    // No workers: every upload stays queued.
    let (_server, address) = start_binary(
        dir.path(),
        &[
            "--role",
            "api",
            "--max-unfinished-runs",
            "2",
            "--closed-sign-up",
        ],
    );
    let client = Client::new(&address);
    let (code, body) = client.sign_up("eve").await;
    assert_eq!(code, 403, "{body}");
    let flooder = issue_token(dir.path(), "flooder", false);
    let honest = issue_token(dir.path(), "honest", false);
    for steps in [60, 61] {
        assert_eq!(
            client
                .upload(Some(&flooder), &replay_of(None, steps))
                .await
                .0,
            202
        );
    }
    let (code, body, retry) = client.upload(Some(&flooder), &replay_of(None, 62)).await;
    assert_eq!(code, 429, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("--max-unfinished-runs"),
        "{body}"
    );
    let retry: u64 = retry.unwrap().parse().unwrap();
    assert!(retry >= 1);
    // Another player is not held up by the flood.
    assert_eq!(
        client.upload(Some(&honest), &replay_of(None, 63)).await.0,
        202
    );
}

/// One player queues ten runs, two of which are claimed; then another
/// player queues one, then a third player: each is claimed within the
/// next two claims (behind at most one job of the flood, the one in the
/// same turn), and the flood goes on in its order.
async fn the_queue_is_fair(database: &str) {
    let store = Store::open(database).await.unwrap();
    let submit = |player: &'static str, steps: u64| {
        let store = store.clone();
        async move {
            let bytes = replay_of(None, steps);
            let id = blake3::hash(&bytes).to_hex().to_string();
            assert_eq!(
                store.submit(&id, &bytes, player).await.unwrap(),
                Submitted::New
            );
            id
        }
    };
    let lease = Duration::from_secs(60);
    let claim = || async { store.claim("w", lease, 3).await.unwrap().unwrap().run_id };
    let mut flood = Vec::new();
    for k in 0..10 {
        flood.push(submit("flooder", 60 + k).await);
    }
    assert_eq!(claim().await, flood[0]);
    assert_eq!(claim().await, flood[1]);
    let mut next_flood = 2;
    for (player, steps) in [(TESTER, 100), ("late", 101)] {
        let id = submit(player, steps).await;
        let two = [claim().await, claim().await];
        assert!(two.contains(&id), "{player}'s run waited behind {two:?}");
        let of_flood: Vec<&String> = two.iter().filter(|c| **c != id).collect();
        assert_eq!(of_flood, [&flood[next_flood]]);
        next_flood += 1;
    }
    // Then the rest of the flood, in its order.
    for expected in &flood[next_flood..] {
        assert_eq!(&claim().await, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_the_queue_is_fair_between_players() {
    let dir = tempfile::tempdir().unwrap();
    the_queue_is_fair(&sqlite_url(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_queue_is_fair_between_players() {
    if let Some(database) = postgres_database("fair_queue").await {
        the_queue_is_fair(&database).await;
    }
}
