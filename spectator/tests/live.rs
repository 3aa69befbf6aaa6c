//! Spectating over real HTTP on loopback: late joiners reach the host's
//! world bit for bit, a hundred spectators follow one race at once,
//! immutable pieces are cacheable, and the figures for BENCHMARKS.md
//! (`cargo test --release -p skidpad-spectator --test live -- --nocapture`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_replay::{Limits, RecorderOptions, StreamFollower, StreamRecorder, SyncPolicy};
use skidpad_spectator::{Race, RaceSink, Races, ServiceLimits, router};

const DT: f64 = 1.0 / 60.0;
const CHUNK: u32 = 60;
const CARS: usize = 2;

async fn serve(races: Races) -> SocketAddr {
    serve_within(races, ServiceLimits::default()).await
}

/// One race, `r`, served within `limits`.
async fn serve_race(limits: ServiceLimits) -> (SocketAddr, Arc<Race>) {
    let races = Races::default();
    let race = Race::new();
    races.insert("r", race.clone());
    (serve_within(races, limits).await, race)
}

/// [`serve`] within `limits`.
async fn serve_within(races: Races, limits: ServiceLimits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(races, limits).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

enum Command {
    Advance(u64, mpsc::Sender<[u8; 32]>),
    /// A car joins the race (through the recorder), behind the others.
    Join(mpsc::Sender<[u8; 32]>),
    Finish(mpsc::Sender<[u8; 32]>),
}

/// The host: a race on its own thread (the recorder is not `Send`),
/// stepped on command; each reply is the world hash reached.
struct Host {
    commands: mpsc::Sender<Command>,
}

impl Host {
    fn start(race: Arc<Race>) -> Host {
        let (commands, inbox) = mpsc::channel::<Command>();
        std::thread::spawn(move || {
            let track = Arc::new(Track::builtin("brandwood").unwrap());
            let mut world = World::new(WorldConfig::default()).unwrap();
            for k in 0..CARS {
                let id = world
                    .add_car(
                        &preset(["fwd_hatchback", "rwd_sports"][k % 2]).unwrap(),
                        skidpad_core::race::pose_along(
                            &track,
                            track.length() - 10.0 * k as f64 - 6.0,
                            0.0,
                            10.0,
                        ),
                    )
                    .unwrap();
                world.set_driver(id, Some(track.clone())).unwrap();
            }
            let options = RecorderOptions {
                keyframe_every: CHUNK,
                ..RecorderOptions::default()
            };
            let mut stream =
                StreamRecorder::new(&world, options, RaceSink::new(race), SyncPolicy::Never)
                    .unwrap();
            for command in inbox {
                match command {
                    Command::Advance(n, reply) => {
                        for _ in 0..n {
                            stream.step(&mut world, DT).unwrap();
                        }
                        reply.send(world.world_hash()).unwrap();
                    }
                    Command::Join(reply) => {
                        let k = world.car_count();
                        let pose = skidpad_core::race::pose_along(
                            &track,
                            track.length() - 30.0 - 12.0 * k as f64,
                            0.0,
                            8.0,
                        );
                        let definition = preset("fwd_hatchback").unwrap();
                        let id = stream.add_car(&mut world, &definition, pose).unwrap();
                        world.set_driver(id, Some(track.clone())).unwrap();
                        reply.send(world.world_hash()).unwrap();
                    }
                    Command::Finish(reply) => {
                        stream.finish(&world).unwrap();
                        reply.send(world.world_hash()).unwrap();
                        return;
                    }
                }
            }
        });
        Host { commands }
    }

    async fn advance(&self, n: u64) -> [u8; 32] {
        let (tx, rx) = mpsc::channel();
        self.commands.send(Command::Advance(n, tx)).unwrap();
        tokio::task::spawn_blocking(move || rx.recv().unwrap())
            .await
            .unwrap()
    }

    async fn join(&self) -> [u8; 32] {
        let (tx, rx) = mpsc::channel();
        self.commands.send(Command::Join(tx)).unwrap();
        tokio::task::spawn_blocking(move || rx.recv().unwrap())
            .await
            .unwrap()
    }

    async fn finish(&self) -> [u8; 32] {
        let (tx, rx) = mpsc::channel();
        self.commands.send(Command::Finish(tx)).unwrap();
        tokio::task::spawn_blocking(move || rx.recv().unwrap())
            .await
            .unwrap()
    }
}

/// What one spectator ended with.
struct Watched {
    hash: [u8; 32],
    step: u64,
    /// From the first request to holding every chunk sealed when it joined.
    join_latency: Duration,
}

async fn play(follower: StreamFollower, chunk: Vec<u8>) -> StreamFollower {
    tokio::task::spawn_blocking(move || {
        let mut follower = follower;
        follower.push_chunk(&chunk).unwrap();
        follower
    })
    .await
    .unwrap()
}

/// A spectator joining now: the header, the live tail, the chunk with the
/// latest keyframe, then every chunk the tail announces, to the end.
async fn spectate(client: reqwest::Client, base: String) -> Watched {
    let started = Instant::now();
    let header = client.get(format!("{base}/header")).send().await.unwrap();
    assert_eq!(header.status(), 200);
    let header = header.bytes().await.unwrap();
    let mut follower = StreamFollower::new(&header, Limits::default()).unwrap();
    // Subscribe before asking for the latest chunk, so nothing sealed in
    // between is missed.
    let live = client.get(format!("{base}/live")).send().await.unwrap();
    assert_eq!(live.status(), 200);
    let latest = client
        .get(format!("{base}/keyframe/latest"))
        .send()
        .await
        .unwrap();
    let mut next = 1;
    let mut join_latency = None;
    if latest.status() == 200 {
        let n: u64 = latest.headers()["x-skidpad-chunk"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let piece = latest.bytes().await.unwrap().to_vec();
        // The cars that joined before that chunk come first.
        let arrivals = client
            .get(format!("{base}/arrivals/{n}"))
            .send()
            .await
            .unwrap();
        assert_eq!(arrivals.status(), 200);
        follower
            .push_arrivals(&arrivals.bytes().await.unwrap())
            .unwrap();
        follower = play(follower, piece).await;
        join_latency = Some(started.elapsed());
        next = n + 1;
    }
    let mut events = live.bytes_stream();
    let mut text = String::new();
    let mut last = None;
    'tail: while let Some(bytes) = events.next().await {
        text.push_str(&String::from_utf8_lossy(&bytes.unwrap()));
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            let field = |name: &str| {
                event
                    .lines()
                    .find_map(|l| l.strip_prefix(name).map(str::trim).map(str::to_owned))
            };
            let kind = field("event:");
            let Some(n) = field("data:").and_then(|d| d.parse::<u64>().ok()) else {
                continue; // a keep-alive comment
            };
            let upto = n;
            while next <= upto {
                let chunk = client
                    .get(format!("{base}/chunks/{next}"))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(chunk.status(), 200);
                follower = play(follower, chunk.bytes().await.unwrap().to_vec()).await;
                join_latency.get_or_insert(started.elapsed());
                next += 1;
            }
            if kind.as_deref() == Some("end") {
                last = Some(n);
                break 'tail;
            }
        }
    }
    assert!(last.is_some(), "the live tail closed before the end event");
    Watched {
        hash: follower.world().unwrap().world_hash(),
        step: follower.step(),
        join_latency: join_latency.unwrap_or_default(),
    }
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_joiners_reach_the_hosts_world_bit_for_bit() {
    for joined_after in [1, 100, 10_000] {
        let races = Races::default();
        let race = Race::new();
        races.insert("r", race.clone());
        let addr = serve(races).await;
        let host = Host::start(race.clone());
        host.advance(joined_after).await;
        let base = format!("http://{addr}/races/r");
        let watcher = tokio::spawn(spectate(reqwest::Client::new(), base.clone()));
        // The race goes on while the spectator catches up, then ends.
        tokio::time::sleep(Duration::from_millis(50)).await;
        host.advance(150).await;
        let final_hash = host.finish().await;
        let watched = watcher.await.unwrap();
        assert_eq!(watched.step, joined_after + 150, "after {joined_after}");
        assert_eq!(watched.hash, final_hash, "after {joined_after}");
        println!(
            "joined after {joined_after} steps: caught up in {:.1} ms",
            watched.join_latency.as_secs_f64() * 1000.0
        );
        // The range says where it ended.
        let range: serde_json::Value = reqwest::get(format!("{base}/range"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let chunks = (joined_after + 150).div_ceil(u64::from(CHUNK));
        assert_eq!(range["last"], chunks);
        assert_eq!(range["end"], chunks);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_follow_cars_that_join_the_race() {
    let (addr, race) = serve_race(ServiceLimits::default()).await;
    let host = Host::start(race.clone());
    let base = format!("http://{addr}/races/r");
    host.advance(1).await;
    let from_start = tokio::spawn(spectate(reqwest::Client::new(), base.clone()));
    tokio::time::sleep(Duration::from_millis(50)).await;
    // One car joins right at a cut (after chunk 2 was sealed), one inside
    // chunk 3; a spectator joins after both.
    host.advance(119).await;
    host.join().await;
    host.advance(25).await;
    host.join().await;
    host.advance(100).await;
    let late = tokio::spawn(spectate(reqwest::Client::new(), base.clone()));
    tokio::time::sleep(Duration::from_millis(50)).await;
    host.advance(100).await;
    let final_hash = host.finish().await;
    for watcher in [from_start, late] {
        let watched = watcher.await.unwrap();
        assert_eq!(watched.step, 345);
        assert_eq!(watched.hash, final_hash);
    }
    // Chunk 3's piece carries both arrivals; a spectator starting at
    // chunk 4 or later fetches them first.
    let client = reqwest::Client::new();
    let get = |path: String| {
        let client = client.clone();
        async move {
            let response = client.get(path).send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.bytes().await.unwrap().to_vec()
        }
    };
    let before = |n: u64| get(format!("{base}/arrivals/{n}"));
    assert!(before(3).await.is_empty());
    assert_eq!(
        skidpad_replay::read_stream_arrivals(&before(4).await)
            .unwrap()
            .len(),
        2
    );
    let piece = get(format!("{base}/chunks/3")).await;
    let (arrivals, _) = skidpad_replay::split_chunk_piece(&piece).unwrap();
    assert_eq!(
        arrivals.iter().map(|a| a.world_step).collect::<Vec<_>>(),
        [120, 145]
    );
    let missing = client
        .get(format!("{base}/arrivals/99"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_spectators_follow_one_race() {
    // A hundred spectators share one address here: lift its caps.
    let (addr, race) = serve_race(ServiceLimits {
        streams_per_address: 1000,
        burst: 0,
        ..ServiceLimits::default()
    })
    .await;
    let base = format!("http://{addr}/races/r");
    let host = Host::start(race.clone());
    host.advance(300).await;
    let before = rss_bytes();
    let client = reqwest::Client::new();
    let mut watchers = Vec::new();
    // A hundred spectators join in four waves while the race runs.
    for _wave in 0..4 {
        for _ in 0..25 {
            watchers.push(tokio::spawn(spectate(client.clone(), base.clone())));
        }
        host.advance(120).await;
    }
    let during = rss_bytes();
    let final_hash = host.finish().await;
    let mut latencies = Vec::new();
    for w in watchers {
        let watched = w.await.unwrap();
        assert_eq!(watched.hash, final_hash);
        assert_eq!(watched.step, 300 + 4 * 120);
        latencies.push(watched.join_latency.as_secs_f64() * 1000.0);
    }
    latencies.sort_by(f64::total_cmp);
    let progress = race.progress();
    let wire: usize = (1..=progress.chunks)
        .map(|n| race.chunk(n).unwrap().len())
        .sum();
    let seconds = (300 + 4 * 120) as f64 * DT;
    let per_spectator = during.saturating_sub(before) as f64 / 100.0;
    println!(
        "100 spectators: join p50 {:.1} ms, p99 {:.1} ms; process memory +{:.0} kB per spectator (server and clients); {:.0} bytes per car-second on the wire",
        latencies[49],
        latencies[98],
        per_spectator / 1024.0,
        wire as f64 / (CARS as f64 * seconds)
    );
    // Bounded: chunks are shared, a connection holds no copy of them.
    assert!(per_spectator < 4.0 * 1024.0 * 1024.0, "{per_spectator}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pieces_are_immutable_and_cacheable_and_unknowns_are_404() {
    let races = Races::default();
    let race = Race::new();
    races.insert("r", race.clone());
    let addr = serve(races).await;
    let host = Host::start(race.clone());
    host.advance(130).await;
    let client = reqwest::Client::new();
    let base = format!("http://{addr}/races/r");
    let first = client.get(format!("{base}/chunks/1")).send().await.unwrap();
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(
        first.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    // Any page may watch: CORS allows every origin and exposes the chunk
    // number of the latest-keyframe answer.
    let cross = client
        .get(format!("{base}/keyframe/latest"))
        .header("origin", "http://example.invalid")
        .send()
        .await
        .unwrap();
    assert_eq!(cross.headers()["access-control-allow-origin"], "*");
    assert!(
        cross.headers()["access-control-expose-headers"]
            .to_str()
            .unwrap()
            .contains("x-skidpad-chunk")
    );
    let again = client
        .get(format!("{base}/chunks/1"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    for missing in [
        format!("{base}/chunks/3"),
        format!("{base}/chunks/0"),
        format!("http://{addr}/races/nope/meta"),
    ] {
        assert_eq!(client.get(missing).send().await.unwrap().status(), 404);
    }
    let meta: serde_json::Value = client
        .get(format!("{base}/meta"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(meta["race"]["chunk_steps"], CHUNK);
    assert_eq!(meta["range"]["last"], 2);
    assert_eq!(meta["range"]["end"], 0, "still running");
    host.finish().await;
}

/// `name value` of a sample in a Prometheus exposition.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_holds_a_bounded_number_of_live_tails_and_metrics_count_them() {
    let (addr, _race) = serve_race(ServiceLimits {
        streams_per_address: 2,
        ..ServiceLimits::default()
    })
    .await;
    let client = reqwest::Client::new();
    let live = format!("http://{addr}/races/r/live");
    let first = client.get(&live).send().await.unwrap();
    let second = client.get(&live).send().await.unwrap();
    assert_eq!(
        (first.status().as_u16(), second.status().as_u16()),
        (200, 200)
    );
    let third = client.get(&live).send().await.unwrap();
    assert_eq!(third.status().as_u16(), 429);
    assert!(third.headers().contains_key("retry-after"));
    let metrics = |client: reqwest::Client| async move {
        client
            .get(format!("http://{addr}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let text = metrics(client.clone()).await;
    assert_eq!(
        sample(&text, "skidpad_spectator_subscribers"),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"skidpad_spectator_http_requests_total{route="/races/{id}/live",code="429"}"#
        ),
        Some(1.0),
        "{text}"
    );
    // A spectator that leaves frees its place.
    drop(first);
    let again = wait_for_status(&client, &live, 200).await;
    assert_eq!(again, 200);
    drop(second);
    assert_eq!(
        client
            .get(format!("http://{addr}/health/live"))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
}

/// GETs `url` until it answers `code` (a closed stream is noticed by the
/// server when its next write fails or the connection closes); gives up
/// after 5 s with the last code.
async fn wait_for_status(client: &reqwest::Client, url: &str, code: u16) -> u16 {
    let started = Instant::now();
    loop {
        let got = client.get(url).send().await.unwrap().status().as_u16();
        if got == code || started.elapsed() > Duration::from_secs(5) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
