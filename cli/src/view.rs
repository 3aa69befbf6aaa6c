//! `skidpad view FILE…`: serves the web viewer (`viewer/`), the wasm
//! package it runs (`bindings-wasm/pkg/`) and the given files on
//! 127.0.0.1, and prints the page's URL. The page lists the files from
//! `/files.json` and opens them: the first replay or stream is played,
//! ghosts are raced against it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use skidpad_core::SIMULATION_VERSION;
use skidpad_ghost::decode_ghost;
use skidpad_replay::{FileKind, Limits, decode_replay_with, read_replay_header, read_stream};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// Where the viewer's files live: the repository this binary was built
/// from, unless `SKIDPAD_VIEWER_ROOT` names another checkout.
#[must_use]
pub fn default_root() -> PathBuf {
    std::env::var_os("SKIDPAD_VIEWER_ROOT").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        PathBuf::from,
    )
}

#[derive(Serialize)]
struct ServedFile {
    name: String,
    url: String,
}

/// Refuses a file the page could not open, before anything is served:
/// each is read as what its first bytes say it is (a replay of the current
/// version decoded whole, an older version's header, a stream as far as it
/// goes, a ghost, a ground file, a glTF scene imported, a track file
/// read), so a typo or a damaged file is named on the command line
/// instead of in a browser later.
fn check_servable(file: &Path) -> Result<()> {
    // A track file: the page times and draws the replays that name its
    // track without carrying it.
    if file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("csv"))
    {
        return crate::track_cmd::read_track(file).map(drop);
    }
    // A glTF scene: the page plays replays on its ground and draws it.
    if crate::track_cmd::is_scene(file) {
        return crate::track_cmd::read_scene(file, &crate::track_cmd::ImportArgs::default())
            .map(drop);
    }
    let bytes = crate::files::read(file)?;
    let limits = Limits::default();
    let checked = match FileKind::sniff(&bytes) {
        FileKind::Replay => read_replay_header(&bytes).and_then(|header| {
            if header.simulation_version == SIMULATION_VERSION {
                decode_replay_with(&bytes, &limits).map(drop)
            } else {
                // An older version plays in its archived core in the page;
                // today's decoder reads every version's header alike.
                Ok(())
            }
        }),
        FileKind::Stream => read_stream(&bytes, &limits).map(drop),
        FileKind::Ghost => {
            return decode_ghost(&bytes)
                .map(drop)
                .with_context(|| format!("{} is not a ghost the viewer can open", file.display()));
        }
        // The page draws a ground file's surface under the replays that
        // were recorded on it.
        FileKind::Ground => return crate::files::read_ground(file).map(drop),
        FileKind::Empty | FileKind::Unknown => {
            return crate::files::kind(file, &bytes).map(drop);
        }
    };
    checked.with_context(|| format!("{} cannot be opened", file.display()))
}

/// Checks the assets and files, binds `127.0.0.1:port` (0: any free
/// port), calls `ready` with the page's URL and serves until killed.
pub fn serve(root: &Path, files: &[PathBuf], port: u16, ready: impl FnOnce(&str)) -> Result<()> {
    let mut listing = Vec::new();
    for (k, file) in files.iter().enumerate() {
        let meta = fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?;
        if !meta.is_file() {
            bail!("{} is not a file", file.display());
        }
        check_servable(file)?;
        let name = file
            .file_name()
            .map_or_else(|| format!("file{k}"), |n| n.to_string_lossy().into_owned());
        listing.push(ServedFile {
            url: format!("/files/{k}/{name}"),
            name,
        });
    }
    // The files first: they are what the user typed; the assets are the
    // installation's.
    let assets = page_assets(root)?;
    let files: Arc<Vec<PathBuf>> = Arc::new(files.to_vec());
    let listing = serde_json::to_string(&listing)?;
    let app = Router::new()
        .route_service("/", ServeFile::new(root.join("viewer/index.html")))
        .route(
            "/files.json",
            get(move || async move { ([(header::CONTENT_TYPE, "application/json")], listing) }),
        )
        .route("/files/{index}/{name}", get(served_file))
        .with_state(files)
        .merge(assets)
        // Files are read on every request, so a re-recorded replay shows
        // on reload.
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
        ready(&format!("http://{}/", listener.local_addr()?));
        axum::serve(listener, app).await?;
        Ok(())
    })
}

/// The web app's pages and what they load, for any server that offers
/// them (`skidpad view`, the leaderboard's `--play`): `/view` (the
/// viewer), `/play` (the play page), `/race` (an online race on a
/// `skidpad-netplay` server), `/viewer/…` (their modules and
/// node_modules), `/pkg/…` (the wasm package) and `/cores/…` (the archive
/// of old cores, fetched when an older replay is opened). Fails, saying
/// how to build them, when the assets are missing.
pub fn page_assets<S: Clone + Send + Sync + 'static>(root: &Path) -> Result<Router<S>> {
    let viewer = root.join("viewer");
    let package = root.join("bindings-wasm/pkg");
    for (path, what) in [
        (viewer.join("index.html"), "the viewer page"),
        (viewer.join("play.html"), "the play page"),
        (viewer.join("race.html"), "the online race page"),
        (
            viewer.join("node_modules/three/build/three.module.js"),
            "three.js (npm ci in viewer/)",
        ),
        (package.join("web/skidpad_wasm.js"), "the wasm package"),
    ] {
        if !path.is_file() {
            bail!(
                "{what} is missing at {}: run `cargo xtask viewer` once to build the viewer's assets",
                path.display()
            );
        }
    }
    Ok(Router::new()
        .route_service("/view", ServeFile::new(viewer.join("index.html")))
        .route_service("/play", ServeFile::new(viewer.join("play.html")))
        .route_service("/race", ServeFile::new(viewer.join("race.html")))
        .nest_service("/viewer", ServeDir::new(viewer))
        .nest_service("/pkg", ServeDir::new(package))
        .nest_service("/cores", ServeDir::new(root.join("cores/archive"))))
}

/// `GET /files/{index}/{name}`: the index-th file given on the command
/// line (the name is only for the page's display).
async fn served_file(
    State(files): State<Arc<Vec<PathBuf>>>,
    UrlPath((index, _name)): UrlPath<(usize, String)>,
) -> Response {
    let Some(path) = files.get(index) else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    match tokio::fs::read(path).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response(),
        Err(e) => (
            StatusCode::NOT_FOUND,
            format!("cannot read {}: {e}", path.display()),
        )
            .into_response(),
    }
}
