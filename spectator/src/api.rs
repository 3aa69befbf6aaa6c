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
//!   holding a standalone replay from one keyframe to the next;
//! - `GET /races/{id}/keyframe/latest`: the chunk that ends with the latest
//!   keyframe (its number in `X-Skidpad-Chunk`): a late joiner plays it
//!   and follows on from the next;
//! - `GET /races/{id}/live`: the live tail, server-sent events `chunk`
//!   (data: its number) as chunks are sealed and `end` when the race ends.
//!
//! Every answer allows any origin (CORS), so a page anywhere can watch.
//! Header and chunks never change once published: they carry an `ETag`
//! (blake3 of the bytes), answer `If-None-Match` with 304, and are
//! `Cache-Control: public, max-age=31536000, immutable`.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use futures::Stream;
use serde_json::json;

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

/// The service's routes over `races`.
pub fn router(races: Races) -> Router {
    Router::new()
        .route("/races", get(list))
        .route("/races/{id}/meta", get(meta))
        .route("/races/{id}/range", get(range))
        .route("/races/{id}/header", get(header_piece))
        .route("/races/{id}/chunks/{n}", get(chunk))
        .route("/races/{id}/keyframe/latest", get(latest_keyframe))
        .route("/races/{id}/live", get(live))
        .layer(
            tower_http::cors::CorsLayer::new()
                .allow_origin(tower_http::cors::Any)
                .expose_headers([
                    header::ETAG,
                    header::HeaderName::from_static("x-skidpad-chunk"),
                ]),
        )
        .with_state(races)
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
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    match race.chunk(n) {
        Some(bytes) => immutable(bytes, &request, None),
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
fn tail(
    race: &Race,
    from: u64,
    closing: tokio::sync::watch::Receiver<bool>,
) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
    let receiver = race.subscribe();
    futures::stream::unfold(
        (receiver, from, false),
        move |(mut receiver, sent, done)| {
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
                        return Some((Ok(event), (receiver, n, false)));
                    }
                    if p.ended {
                        let event = Event::default().event("end").data(p.chunks.to_string());
                        return Some((Ok(event), (receiver, sent, true)));
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

async fn live(State(races): State<Races>, Path(id): Path<String>, request: HeaderMap) -> Response {
    let Some(race) = races.get(&id) else {
        return no_race(&id);
    };
    // Resume after the last chunk the client saw (`Last-Event-ID`), else
    // announce only chunks sealed from now on.
    let from = request
        .get("last-event-id")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .unwrap_or_else(|| race.progress().chunks);
    Sse::new(tail(&race, from, races.closing.subscribe()))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
