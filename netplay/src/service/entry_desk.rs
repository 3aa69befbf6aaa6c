//! Each driver's leaderboard entry, handed out over HTTP once the race is
//! over: `GET /entry` with the driver's seat token as a bearer token
//! answers the `.skr` to submit, sealed with the server's key when it has
//! one (`FORMAT.md`, "Entries").
//!
//! When every seated car has finished, or every car has left, the race
//! loop ends the recording's segment and the desk, on a thread of its own,
//! writes it as one replay naming every car's driver (`race-NNN.skr`
//! beside the stream) and cuts one entry per driver from it
//! ([`leaderboard_entry`]):
//! cutting the race for a driver who left re-simulates it, which must not
//! hold up the race's ticks. A seat keeps the first entry made for it, so
//! a player who joins after the finish (and starts a segment in which the
//! others are already moving) does not replace the entries of the race
//! everyone started from rest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::json;
use skidpad_replay::{Limits, SealingKey};
use tower_http::cors::{Any, CorsLayer};

use super::Shared;
use super::recording::Finished;
use crate::entry::{leaderboard_entry, race_replay};

/// What a seat's token collects.
#[derive(Clone, Debug)]
enum Served {
    /// The entry to submit.
    Ready {
        driver: String,
        car: u32,
        bytes: Arc<Vec<u8>>,
    },
    /// The recording gave no entry for the driver, and why.
    Refused(String),
}

/// The entries made so far, by seat token.
#[derive(Debug)]
pub(crate) struct EntryDesk {
    entries: Mutex<BTreeMap<String, Served>>,
    seal: Option<Arc<SealingKey>>,
    /// Whether the race is recorded at all (without it no entry is ever
    /// made, and the answer says so).
    recorded: bool,
}

impl EntryDesk {
    pub(crate) fn new(seal: Option<Arc<SealingKey>>, recorded: bool) -> EntryDesk {
        EntryDesk {
            entries: Mutex::new(BTreeMap::new()),
            seal,
            recorded,
        }
    }

    /// Builds the entries of a finished segment on a new thread.
    pub(crate) fn publish(self: &Arc<Self>, finished: Finished) {
        let desk = self.clone();
        let spawned = std::thread::Builder::new()
            .name("skidpad-entries".into())
            .spawn(move || desk.make_entries(&finished));
        if let Err(e) = spawned {
            tracing::error!("cannot start the entries' thread: {e}");
        }
    }

    fn make_entries(&self, finished: &Finished) {
        let made: Vec<(String, Served)> = match race_replay_file(finished) {
            Ok((replay, bytes)) => finished
                .drivers
                .iter()
                .map(|d| (d.token.clone(), self.entry_of(&bytes, &d.name, &replay)))
                .collect(),
            Err(reason) => {
                tracing::error!("{reason}");
                finished
                    .drivers
                    .iter()
                    .map(|d| (d.token.clone(), Served::Refused(reason.clone())))
                    .collect()
            }
        };
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        for (token, served) in made {
            entries.entry(token).or_insert(served);
        }
    }

    fn entry_of(&self, recording: &[u8], driver: &str, path: &Path) -> Served {
        // The server's own file: the limits only bound what a damaged disk
        // could make it decode.
        let seal = self.seal.as_deref();
        match leaderboard_entry(recording, driver, None, seal, &Limits::default()) {
            Ok(entry) => {
                tracing::info!(driver, car = entry.car, path = %path.display(), "an entry is ready");
                Served::Ready {
                    driver: driver.to_owned(),
                    car: entry.car,
                    bytes: Arc::new(entry.bytes),
                }
            }
            Err(e) => {
                tracing::warn!(driver, path = %path.display(), "no entry: {e}");
                Served::Refused(e.to_string())
            }
        }
    }

    fn served(&self, token: &str) -> Option<Served> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(token).cloned()
    }
}

/// Writes the finished segment as one replay beside its stream (`.skr`,
/// naming every car's driver, late arrivals included): its path and
/// bytes, which every driver's entry is cut from.
fn race_replay_file(finished: &Finished) -> Result<(PathBuf, Vec<u8>), String> {
    let path = &finished.segment.path;
    let stream = std::fs::read(path)
        .map_err(|e| format!("the recording {} cannot be read: {e}", path.display()))?;
    // The server's own file: the limits only bound what a damaged disk
    // could make it decode.
    let (bytes, _) = race_replay(
        &stream,
        &finished.names,
        &finished.ai_stints,
        &Limits::default(),
    )
    .map_err(|e| format!("the recording {}: {e}", path.display()))?;
    let replay = path.with_extension("skr");
    std::fs::write(&replay, &bytes).map_err(|e| format!("writing {}: {e}", replay.display()))?;
    println!(
        "replay {} cars={} bytes={}",
        replay.display(),
        finished.names.len(),
        bytes.len()
    );
    Ok((replay, bytes))
}

/// Ends the recording's segment and makes its drivers' entries once every
/// seated car has finished: the race is over.
pub(crate) fn close_finished_race(
    race: &crate::server::RaceServer,
    recording: &mut Option<super::recording::Recording>,
    entries: &Arc<EntryDesk>,
) {
    let Some(recording) = recording.as_mut().filter(|r| r.is_open()) else {
        return;
    };
    let standings = race.standings();
    if standings.is_empty() || !standings.iter().all(|s| s.finished) {
        return;
    }
    if let Some(finished) = recording.finish(race) {
        entries.publish(finished);
    }
}

/// A JSON error answer, as the other skidpad services give them.
fn error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// `GET /entry`: the caller's entry, by the seat token in
/// `Authorization: Bearer`.
pub(crate) async fn get_entry(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(token) = token.filter(|t| shared.options.race.seat_tokens.iter().any(|s| s == t))
    else {
        return error(
            StatusCode::UNAUTHORIZED,
            "give a seat's token as `Authorization: Bearer TOKEN`",
        );
    };
    let desk = &shared.entries;
    match desk.served(token) {
        Some(Served::Ready { driver, car, bytes }) => {
            let mut response = (
                [(header::CONTENT_TYPE, "application/octet-stream")],
                bytes.as_ref().clone(),
            )
                .into_response();
            let headers = response.headers_mut();
            headers.insert("x-skidpad-car", HeaderValue::from(car));
            headers.insert("x-skidpad-driver", driver_header(&driver));
            response
        }
        Some(Served::Refused(reason)) => error(
            StatusCode::UNPROCESSABLE_ENTITY,
            &format!("the race gave no entry for this seat: {reason}"),
        ),
        None if !desk.recorded => error(
            StatusCode::NOT_FOUND,
            "this server does not record its races (serve --record), so it makes no entries",
        ),
        // Not an error: the entry is coming, the caller asks again.
        None => (
            StatusCode::ACCEPTED,
            axum::Json(json!({
                "waiting": "no entry yet: entries are made when every car has finished or left"
            })),
        )
            .into_response(),
    }
}

/// The `x-skidpad-driver` header for a driver's name: its UTF-8 with every
/// byte but ASCII letters and digits percent-encoded, since a header value
/// is visible ASCII and a name may be any text.
fn driver_header(name: &str) -> HeaderValue {
    let encoded = utf8_percent_encode(name, NON_ALPHANUMERIC).to_string();
    HeaderValue::from_str(&encoded).expect("percent-encoding leaves visible ASCII")
}

/// CORS for `GET /entry`: the race page is served by another origin (the
/// leaderboard's web app, say) and asks with the seat token in an
/// `Authorization` header, so the browser sends a preflight; the car and
/// driver headers are exposed for the page to name the file. Any origin
/// may ask, since the answer is only ever for the token's holder.
pub(crate) fn cross_origin() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET])
        .allow_headers([header::AUTHORIZATION])
        .expose_headers([
            HeaderName::from_static("x-skidpad-car"),
            HeaderName::from_static("x-skidpad-driver"),
        ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race_config::RaceConfig;
    use crate::server::RaceServer;
    use crate::service::recording::Recording;
    use skidpad_replay::ReplayHeader;

    /// A short recorded race whose seats joined under `names`, then (10
    /// steps in, arriving in the recording) under `late`.
    fn segment(dir: &Path, names: &[&str], late: &[&str]) -> Finished {
        let all = names.len() + late.len();
        let tokens: Vec<String> = (0..all).map(|i| format!("seat-{i}")).collect();
        let mut race = RaceServer::new(RaceConfig {
            seat_tokens: tokens.clone(),
            ..RaceConfig::default()
        })
        .unwrap();
        for (token, name) in tokens.iter().zip(names) {
            race.join(token, name).unwrap();
        }
        let mut recording = Recording::new(dir.to_owned());
        recording.restart(&race);
        for step in 0..30 {
            if step == 10 {
                for (token, name) in tokens[names.len()..].iter().zip(late) {
                    let seat = race.join(token, name).unwrap();
                    recording.adopt(&race, seat);
                }
            }
            race.step().unwrap();
            recording.capture(&race);
        }
        recording.finish(&race).unwrap()
    }

    #[test]
    fn the_race_replay_says_which_steps_the_ai_drove_for_an_absent_player() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = vec!["seat-0".to_owned(), "seat-1".to_owned()];
        let mut race = RaceServer::new(RaceConfig {
            seat_tokens: tokens.clone(),
            ..RaceConfig::default()
        })
        .unwrap();
        race.join(&tokens[0], "ann").unwrap();
        let bob = race.join(&tokens[1], "bob").unwrap();
        let mut recording = Recording::new(dir.path().to_owned());
        recording.restart(&race);
        for step in 0..40 {
            match step {
                5 => race.drop_link(bob).unwrap(),
                20 => {
                    race.join(&tokens[1], "bob").unwrap();
                }
                30 => race.drop_link(bob).unwrap(),
                _ => {}
            }
            race.step().unwrap();
            recording.capture(&race);
        }
        let finished = recording.finish(&race).unwrap();
        let desk = EntryDesk::new(None, true);
        desk.make_entries(&finished);
        let replay = std::fs::read(dir.path().join("race-000.skr")).unwrap();
        let replay = skidpad_replay::decode_replay(&replay).unwrap();
        assert_eq!(
            replay.header.metadata_value(crate::entry::AI_STINTS_KEY),
            Some(
                r#"[{"car":1,"from_step":5,"to_step":20},{"car":1,"from_step":30,"to_step":null}]"#
            )
        );
        // The AI's inputs are in the recording: bob's car moved while he
        // was away (it drives from the start, which is at once here).
        let ran = &replay.cars[1].inputs;
        assert!(ran[5..20].iter().any(|i| i.throttle > 0.0));
    }

    #[test]
    fn any_name_fits_the_driver_header_and_decodes_back() {
        assert_eq!(driver_header("ann"), "ann");
        assert_eq!(driver_header("Jürgen K."), "J%C3%BCrgen%20K%2E");
        let encoded = driver_header("名前\n");
        let decoded = percent_encoding::percent_decode(encoded.as_bytes())
            .decode_utf8()
            .unwrap();
        assert_eq!(decoded, "名前\n");
    }

    #[test]
    fn each_seat_gets_its_drivers_entry_or_the_reason_and_keeps_its_first() {
        let dir = tempfile::tempdir().unwrap();
        let desk = EntryDesk::new(Some(Arc::new(SealingKey::from_seed([7; 32]))), true);
        desk.make_entries(&segment(dir.path(), &["ann", "bob"], &["dan"]));
        // dan joined the running race: the stream's header names ann and
        // bob only, and the replay written at the end names all three.
        let replay = std::fs::read(dir.path().join("race-000.skr")).unwrap();
        let replay = skidpad_replay::decode_replay(&replay).unwrap();
        assert_eq!(
            replay.header.metadata_value(ReplayHeader::DRIVERS_KEY),
            Some(r#"["ann","bob","dan"]"#)
        );
        assert_eq!(replay.cars[2].arrived_at(), 10);
        for (token, name, index) in [
            ("seat-0", "ann", 0),
            ("seat-1", "bob", 1),
            ("seat-2", "dan", 2),
        ] {
            match desk.served(token) {
                Some(Served::Ready { driver, car, bytes }) => {
                    assert_eq!((driver.as_str(), car), (name, index));
                    let replay = skidpad_replay::decode_replay(&bytes).unwrap();
                    assert!(skidpad_replay::check_seal(&replay).unwrap().is_some());
                }
                other => panic!("{token}: {other:?}"),
            }
        }
        // A later segment (a player joined after the finish, say) whose
        // drivers share a name gives no entry for them, and the seats
        // keep the entries they had.
        let later = tempfile::tempdir().unwrap();
        let twice = segment(later.path(), &["ann", "ann", "carl"], &[]);
        desk.make_entries(&twice);
        assert!(matches!(
            desk.served("seat-0"),
            Some(Served::Ready { car: 0, .. })
        ));
        match desk.served("seat-2") {
            Some(Served::Ready { driver, car: 2, .. }) => assert_eq!(driver, "dan"),
            other => panic!("{other:?}"),
        }
        let fresh = EntryDesk::new(None, true);
        fresh.make_entries(&twice);
        match fresh.served("seat-1") {
            Some(Served::Refused(reason)) => assert!(reason.contains("drove two cars"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert!(fresh.served("seat-9").is_none());
    }
}
