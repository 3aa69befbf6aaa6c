//! The HTTP API (routes in `spectator/README.md`):
//!
//! - `GET /races`: ids of the published races;
//! - `GET /races/{id}/meta`: what the race is (version, cars, chunk length,
//!   metadata) and how far it is;
//! - `GET /races/{id}/range`: `first`, `last` sealed chunk and `end` (the
//!   last chunk once the race ended, 0 while it runs);
//! - `GET /races/{id}/header`: the stream's header piece (preamble and
//!   header record: settings and car definitions);
//! - `GET /races/{id}/chunks/{n}`: chunk `n` (from 1), a checksummed record
//!   holding a standalone replay from one keyframe to the next, after the
//!   arrival records (cars that joined) written since the chunk before;
//! - `GET /races/{id}/arrivals/{n}`: every arrival record before chunk
//!   `n`'s piece, for a spectator that starts there (empty when none);
//! - `GET /races/{id}/keyframe/latest`: the chunk that ends with the latest
//!   keyframe (its number in `X-Skidpad-Chunk`): a late joiner plays it
//!   and follows on from the next;
//! - `GET /races/{id}/live`: the live tail, server-sent events `chunk`
//!   (data: its number) as chunks are sealed and `end` when the race ends.
//!
//! - `GET /metrics`, `GET /health/live`: Prometheus exposition, liveness.
//!
//! Every answer allows any origin (CORS), so a page anywhere can watch.
//! An address is rate limited and holds a bounded number of live tails
//! ([`crate::limits`]).
//! Header and chunks never change once published: they carry an `ETag`
//! (blake3 of the bytes), answer `If-None-Match` with 304, and are
//! `Cache-Control: public, max-age=31536000, immutable`.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use axum::{Router, middleware};
use futures::Stream;
use serde_json::json;

use crate::limits::{ServiceLimits, StreamSlot, Streams};
use crate::metrics::{Metrics, count_requests};
use crate::race::{Progress, Race};

/// The races a service offers, by id.
#[derive(Clone)]
pub struct Races {
    races: Arc<RwLock<BTreeMap<String, Arc<Race>>>>,
    /// True once the service is stopping: every live tail ends, so a
    /// graceful shutdown is not held open by spectators' streams.
    closing: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for Races {
    fn default() -> Self {
        Races {
            races: Arc::default(),
            closing: Arc::new(tokio::sync::watch::Sender::new(false)),
        }
    }
}

impl Races {
    /// Ends every live tail (`/races/{id}/live`) now and any opened
    /// later; the pieces stay on offer. Called when the service stops.
    pub fn close_streams(&self) {
        self.closing.send_replace(true);
    }

    /// Adds (or replaces) the race published under `id`.
    pub fn insert(&self, id: &str, race: Arc<Race>) {
        if let Ok(mut races) = self.races.write() {
            races.insert(id.to_owned(), race);
        }
    }

    /// Whether a race is published under `id`.
    #[must_use]
    pub fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    fn get(&self, id: &str) -> Option<Arc<Race>> {
        self.races.read().ok()?.get(id).cloned()
    }

    fn ids(&self) -> Vec<String> {
        self.races
            .read()
            .map(|r| r.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// What the handlers share.
#[derive(Clone)]
struct Service {
    races: Races,
    streams: Arc<Streams>,
    limits: ServiceLimits,
    metrics: Arc<Metrics>,
}

impl FromRef<Service> for Races {
    fn from_ref(service: &Service) -> Races {
        service.races.clone()
    }
}

/// The service's routes over `races`, within `limits`. The rate limit and
/// the live-tail cap key on the peer address: serve the router with
/// `into_make_service_with_connect_info::<SocketAddr>()`.
pub fn router(races: Races, limits: ServiceLimits) -> Router {
    let metrics = Arc::new(Metrics::default());
    let service = Service {
        races,
        streams: Arc::default(),
        limits,
        metrics: metrics.clone(),
    };
    // Every answer but the live tail has a deadline; the tail lasts the
    // race.
    let pieces = Router::new()
        .route("/races", get(list))
        .route("/races/{id}/meta", get(meta))
        .route("/races/{id}/range", get(range))
        .route("/races/{id}/header", get(header_piece))
        .route("/races/{id}/chunks/{n}", get(chunk))
        .route("/races/{id}/arrivals/{n}", get(arrivals))
        .route("/races/{id}/keyframe/latest", get(latest_keyframe))
        .route(
            "/health/live",
            get(|| async { Json(json!({ "status": "live" })) }),
        )
        .route("/metrics", get(metrics_text))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.timeout,
        ));
    let routes = pieces
        .route("/races/{id}/live", get(live))
        .route_layer(middleware::from_fn_with_state(metrics, count_requests));
    let routes = rate_limited(routes, limits);
    routes
        .layer(
            tower_http::cors::CorsLayer::new()
                .allow_origin(tower_http::cors::Any)
                .expose_headers([
                    header::ETAG,
                    header::HeaderName::from_static("x-skidpad-chunk"),
                ]),
        )
        .with_state(service)
}

/// The per-address request rate on every route (none for a zero burst).
fn rate_limited(routes: Router<Service>, limits: ServiceLimits) -> Router<Service> {
    if limits.burst == 0 {
        return routes;
    }
    let config = tower_governor::governor::GovernorConfigBuilder::default()
        .period(limits.every)
        .burst_size(limits.burst)
        .key_extractor(tower_governor::key_extractor::PeerIpKeyExtractor)
        .finish();
    let Some(config) = config.map(Arc::new) else {
        return routes;
    };
    // Forget addresses back at a full budget once a minute, so the table
    // does not keep every address ever seen.
    let limiter = config.limiter().clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                limiter.retain_recent();
            }
        });
    }
    routes.layer(tower_governor::GovernorLayer::new(config))
}

async fn metrics_text(State(service): State<Service>) -> Response {
    let races = service.races.ids().len() as i64;
    service.metrics.render(service.streams.open_now(), races)
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, Json(json!({ "error": what }))).into_response()
}

fn no_race(id: &str) -> Response {
    not_found(format!("no race {id}"))
}

async fn list(State(races): State<Races>) -> Json<Vec<String>> {
    Json(races.ids())
}

fn range_json(p: Progress) -> serde_json::Value {
    json!({
        "first": u64::from(p.chunks > 0),
        "last": p.chunks,
        "end": if p.ended { p.chunks } else { 0 },
    })
}

async fn meta(State(races): State<Races>, Path(id): Path<String>) -> Response {
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    let Some((_, info)) = race.header() else {
        return not_found(format!("race {id} has not started"));
    };
    Json(json!({ "race": info, "range": range_json(race.progress()) })).into_response()
}

async fn range(State(races): State<Races>, Path(id): Path<String>) -> Response {
    match races.get(&id) {
        Some(race) => Json(range_json(race.progress())).into_response(),
        None => no_race(&id),
    }
}

/// An immutable piece with its validator and caching headers; 304 when
/// the client already holds it.
fn immutable(bytes: Bytes, request: &HeaderMap, extra: Option<(&str, String)>) -> Response {
    let etag = format!("\"{}\"", &blake3::hash(&bytes).to_hex()[..32]);
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, v);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    if let Some((name, value)) = extra
        && let (Ok(n), Ok(v)) = (
            header::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        )
    {
        headers.insert(n, v);
    }
    let matches = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    if matches {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, bytes).into_response()
}

async fn header_piece(
    State(races): State<Races>,
    Path(id): Path<String>,
    request: HeaderMap,
) -> Response {
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    match race.header() {
        Some((bytes, _)) => immutable(bytes, &request, None),
        None => not_found(format!("race {id} has not started")),
    }
}

async fn chunk(
    State(races): State<Races>,
    Path((id, n)): Path<(String, u64)>,
    request: HeaderMap,
) -> Response {
    numbered_piece(&races, &id, n, &request, Race::chunk)
}

async fn arrivals(
    State(races): State<Races>,
    Path((id, n)): Path<(String, u64)>,
    request: HeaderMap,
) -> Response {
    numbered_piece(&races, &id, n, &request, Race::arrivals_before)
}

/// What `piece` gives for chunk `n` of race `id`: there once the chunk is
/// sealed, and immutable from then on.
fn numbered_piece(
    races: &Races,
    id: &str,
    n: u64,
    request: &HeaderMap,
    piece: impl Fn(&Race, u64) -> Option<Bytes>,
) -> Response {
    let Some(race) = races.get(id) else {
        return no_race(id);
    };
    match piece(&race, n) {
        Some(bytes) => immutable(bytes, request, None),
        None => not_found(format!("race {id} has no chunk {n} (yet)")),
    }
}

async fn latest_keyframe(
    State(races): State<Races>,
    Path(id): Path<String>,
    request: HeaderMap,
) -> Response {
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    let n = race.progress().chunks;
    match race.chunk(n) {
        Some(bytes) => immutable(bytes, &request, Some(("x-skidpad-chunk", n.to_string()))),
        None => not_found(format!("race {id} has no chunk yet; follow /live")),
    }
}

/// Events from `from` on: one `chunk` event per chunk sealed after the
/// `from`-th, then `end`.
/// The stream holds `slot` until it ends or the client goes away.
fn tail(
    race: &Race,
    from: u64,
    closing: tokio::sync::watch::Receiver<bool>,
    slot: StreamSlot,
) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
    let receiver = race.subscribe();
    futures::stream::unfold(
        (receiver, from, false, slot),
        move |(mut receiver, sent, done, slot)| {
            let mut closing = closing.clone();
            async move {
                if done || *closing.borrow() {
                    return None;
                }
                loop {
                    let p = *receiver.borrow_and_update();
                    if p.chunks > sent {
                        let n = sent + 1;
                        let event = Event::default().event("chunk").data(n.to_string());
                        return Some((Ok(event), (receiver, n, false, slot)));
                    }
                    if p.ended {
                        let event = Event::default().event("end").data(p.chunks.to_string());
                        return Some((Ok(event), (receiver, sent, true, slot)));
                    }
                    // A stopping service ends the stream: the client resumes
                    // elsewhere with Last-Event-ID.
                    tokio::select! {
                        changed = receiver.changed() => {
                            if changed.is_err() {
                                return None;
                            }
                        }
                        _ = closing.wait_for(|c| *c) => return None,
                    }
                }
            }
        },
    )
}

async fn live(
    State(service): State<Service>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    request: HeaderMap,
) -> Response {
    let races = &service.races;
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    let cap = service.limits.streams_per_address;
    let Some(slot) = service.streams.open(peer.ip(), cap) else {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "10")],
            Json(json!({
                "error": format!("this address holds {cap} live tails already (--streams-per-address)")
            })),
        )
            .into_response();
    };
    // Resume after the last chunk the client saw (`Last-Event-ID`), else
    // announce only chunks sealed from now on.
    let from = request
        .get("last-event-id")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .unwrap_or_else(|| race.progress().chunks);
    Sse::new(tail(&race, from, races.closing.subscribe(), slot))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
