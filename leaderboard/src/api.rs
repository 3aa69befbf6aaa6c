//! The HTTP API (JSON). Routes and their bodies are documented in the
//! crate README with curl examples.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router, middleware};
use serde::Deserialize;
use serde_json::json;
use skidpad_cores::{ArchivedCores, CoreRoute};
use skidpad_replay::{Limits, ReplayError, ReplayHeader, gunzip, is_gzip, read_replay_header};
use tokio::sync::Semaphore;
use tower_http::cors::{Any, CorsLayer};

use crate::boards::builtin_only_refusal;
use crate::budget::BoardBudget;
use crate::identity::{self, caller, check_metadata_player};
use crate::judge::PLAYER_KEY;
use crate::limits::{DEFAULT_REQUEST_TIMEOUT, RateLimit, limited};
use crate::metrics::{Metrics, count_requests, exposition};
use crate::registry::BoardRegistry;
use crate::reverify::reverify;
use crate::store::Store;
use crate::store::Submitted;

/// Largest upload accepted by default, bytes (a gzip replay of a one-hour
/// race with one car is about 1 MB).
pub const DEFAULT_MAX_UPLOAD: usize = 16 << 20;
/// Most rows a leaderboard request returns.
pub const MAX_LEADERBOARD_ROWS: u32 = 1000;

/// Upload bounds, and the web app to serve beside the API.
#[derive(Clone, Debug)]
pub struct ApiOptions {
    /// Largest request body, bytes; larger uploads get 413.
    pub max_upload: usize,
    /// Largest decompressed replay, bytes (the gzip bomb guard; the
    /// workers' decode limits bound the rest).
    pub max_decoded: usize,
    /// The web app's pages (`/play`, `/view` and what they load), served
    /// on the API's origin so the play page submits runs to this API
    /// without crossing origins. The binary builds them from a checkout
    /// (`skidpad_cli::view::page_assets`); the library serves whatever it
    /// is given and knows nothing of where they come from.
    pub pages: Option<Router>,
    /// Deadline of a whole request (headers, body, answer); a slower one
    /// gets 408.
    pub request_timeout: std::time::Duration,
    /// Per-address budget of uploads, sign-ups and re-verifications
    /// (`None`: no limit, for load tests of the raw path).
    pub upload_rate: Option<RateLimit>,
    /// The same budget per player's token, whatever address it comes
    /// from (`None`: no limit).
    pub player_rate: Option<RateLimit>,
    /// What one run may cost; a replay over it is refused at upload.
    pub budget: BoardBudget,
    /// The tracks ranked here and their rules, the `--boards` file's and
    /// those registered since (`None`: every built-in track, within
    /// `budget`, and none may be registered); a run breaking them is
    /// refused at upload.
    pub boards: Option<Arc<BoardRegistry>>,
    /// Anyone may claim a free name (`POST /players`); when false, only
    /// the operator issues tokens (`skidpad-leaderboard token issue`).
    pub sign_up: bool,
    /// Runs one player may have waiting for or under verification; past
    /// it, 429.
    pub max_unfinished_runs: u32,
    /// Requests one address may have in flight at once (0: no cap); past
    /// it, 429.
    pub max_requests_per_address: u32,
}

/// Runs a player may have waiting by default: a lap a minute keeps well
/// inside it; a flood stops at the fourth.
pub const DEFAULT_MAX_UNFINISHED_RUNS: u32 = 4;

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            max_upload: DEFAULT_MAX_UPLOAD,
            max_decoded: skidpad_replay::Limits::default().max_decoded_bytes as usize,
            pages: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            upload_rate: Some(RateLimit::default()),
            player_rate: Some(RateLimit::default()),
            budget: BoardBudget::default(),
            boards: None,
            sign_up: true,
            max_unfinished_runs: DEFAULT_MAX_UNFINISHED_RUNS,
            max_requests_per_address: crate::in_flight::DEFAULT_REQUESTS_PER_ADDRESS,
        }
    }
}

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct ApiState {
    pub(crate) store: Store,
    pub(crate) sign_up_open: bool,
    max_unfinished_runs: u32,
    max_decoded: usize,
    budget: BoardBudget,
    pub(crate) boards: Option<Arc<BoardRegistry>>,
    /// Inflations running at once: each may hold up to `max_decoded`
    /// bytes, so a burst of gzip bombs costs at most this many times that.
    inflating: Arc<Semaphore>,
    /// The archived cores (or why they could not be opened), for
    /// re-verifying runs of older simulation versions.
    cores: Result<ArchivedCores, String>,
    /// One re-verification at a time: each costs a core for as long as the
    /// race lasted in simulation.
    reverifying: Arc<Semaphore>,
    metrics: Arc<Metrics>,
}

impl ApiState {
    /// The boards, with any registered since they were loaded (`None`:
    /// no `--boards`, every built-in track).
    pub(crate) async fn fresh_boards(&self) -> Option<Arc<crate::boards::Boards>> {
        match &self.boards {
            Some(registry) => Some(registry.fresh(&self.store).await),
            None => None,
        }
    }
}

/// The service's routes on `store`, counted in `metrics` (which the
/// process's workers share).
pub fn router(store: Store, options: ApiOptions, metrics: Arc<Metrics>) -> Router {
    let state = ApiState {
        store,
        sign_up_open: options.sign_up,
        max_unfinished_runs: options.max_unfinished_runs,
        max_decoded: options.max_decoded,
        budget: options.budget,
        boards: options.boards,
        inflating: Arc::new(Semaphore::new(
            std::thread::available_parallelism().map_or(1, usize::from),
        )),
        cores: ArchivedCores::embedded().map_err(|e| e.to_string()),
        reverifying: Arc::new(Semaphore::new(1)),
        metrics: metrics.clone(),
    };
    let api = Router::new()
        .route("/runs", post(submit))
        .route("/runs/{id}", get(run).delete(identity::delete_run))
        .route("/players", post(identity::sign_up))
        .route("/players/me", get(identity::me))
        .route(
            "/players/{name}/ban",
            post(identity::ban).delete(identity::unban),
        )
        .route("/runs/{id}/replay", get(replay))
        .route("/runs/{id}/reverify", post(reverify_run))
        .route("/versions", get(versions))
        .route(
            "/boards",
            get(crate::board_admin::boards_listing).post(crate::board_admin::register_board),
        )
        .route("/runs/{id}/ghost", get(run_ghost))
        .route("/leaderboards/{track}/{class}", get(leaderboard))
        .route(
            "/leaderboards/{track}/{class}/record/ghost",
            get(record_ghost),
        )
        .route("/leaderboards/{track}/{class}/around/{player}", get(around))
        .route("/health", get(health))
        .route("/health/live", get(live))
        .route("/metrics", get(metrics_text))
        .route_layer(middleware::from_fn_with_state(metrics, count_requests))
        .layer(DefaultBodyLimit::max(options.max_upload));
    let api = limited(
        api,
        (options.request_timeout, options.max_requests_per_address),
        options.upload_rate,
        options.player_rate,
    )
    .layer(
        CorsLayer::new()
            .allow_origin(Any)
            .allow_methods([Method::GET]),
    )
    .with_state(state);
    match options.pages {
        Some(pages) => api.merge(pages),
        None => api,
    }
}

/// A run's id: the blake3 hash, hex, of the replay `bytes` hold (gzip is
/// inflated first, to at most `max_decoded` bytes), so one replay is one
/// run however it is compressed.
pub fn run_id(bytes: &[u8], max_decoded: usize) -> Result<String, ReplayError> {
    let hash = if is_gzip(bytes) {
        blake3::hash(&gunzip(bytes, max_decoded)?)
    } else {
        blake3::hash(bytes)
    };
    Ok(hash.to_hex().to_string())
}

/// An error response: a status, `{"error": message}` and any headers it
/// needs (`WWW-Authenticate`, `Retry-After`).
pub(crate) struct ApiError(StatusCode, String, Vec<(HeaderName, HeaderValue)>);

impl ApiError {
    pub(crate) fn new(code: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError(code, message.into(), Vec::new())
    }

    pub(crate) fn with_header(mut self, name: HeaderName, value: HeaderValue) -> ApiError {
        self.2.push((name, value));
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.0, Json(json!({ "error": self.1 }))).into_response();
        response.headers_mut().extend(self.2);
        response
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        tracing::error!("database: {e}");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("database: {e}"))
    }
}

/// Seconds a player past their unfinished runs is told to wait: about one
/// verification.
const UNFINISHED_RETRY_AFTER: &str = "10";

/// `POST /runs`: a `.skr`, plain or gzip, under the caller's token. 202
/// with the run id for a new run, 200 with the same id for bytes the
/// caller already submitted, 409 for another player's.
async fn submit(
    State(state): State<ApiState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    // Who, before any work on the body.
    let caller = caller(&state, &headers).await?;
    let unfinished = state
        .store
        .unfinished_jobs(&caller.player, state.max_unfinished_runs)
        .await?;
    if unfinished >= i64::from(state.max_unfinished_runs) {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "{unfinished} of your runs are waiting for verification (at most {} at once, --max-unfinished-runs)",
                state.max_unfinished_runs
            ),
        )
        .with_header(
            header::RETRY_AFTER,
            HeaderValue::from_static(UNFINISHED_RETRY_AFTER),
        ));
    }
    if body.is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "empty body: send a .skr replay",
        ));
    }
    let id = if is_gzip(&body) {
        let max = state.max_decoded;
        let _permit = state
            .inflating
            .acquire()
            .await
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
        let id = tokio::task::spawn_blocking({
            let body = body.clone();
            move || run_id(&body, max)
        })
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        match id {
            Ok(id) => id,
            Err(e @ ReplayError::LimitExceeded { .. }) => {
                return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, e.to_string()));
            }
            Err(e) => return Err(ApiError::new(StatusCode::BAD_REQUEST, e.to_string())),
        }
    } else {
        run_id(&body, state.max_decoded)
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.to_string()))?
    };
    // Bytes that are not a replay, over the service's budget or against
    // its board's rules: refused from the header, before anything is
    // stored or simulated (nothing counts against the player's cap of
    // unfinished runs). A body past a sound header is the worker's to
    // judge.
    let header = read_replay_header(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("not a replay this service reads: {e}"),
        )
    })?;
    let boards = match &state.boards {
        Some(registry) => Some(
            registry
                .knowing(header.metadata_value(ReplayHeader::TRACK_KEY), &state.store)
                .await,
        ),
        None => None,
    };
    let refusal = state
        .budget
        .refusal(&header)
        .or_else(|| match boards.as_deref() {
            Some(boards) => boards.refusal(&header),
            None => builtin_only_refusal(&header),
        });
    if let Some(reason) = refusal {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, reason));
    }
    check_metadata_player(&caller, header.metadata_value(PLAYER_KEY))?;
    let submitted = state.store.submit(&id, &body, &caller.player).await?;
    let new = match submitted {
        Submitted::New => {
            tracing::info!(run = %id, player = %caller.player, "run queued");
            true
        }
        Submitted::Existing { submitter } if submitter.as_deref() == Some(&caller.player) => false,
        Submitted::Existing { .. } => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("run {id} was submitted by another player"),
            ));
        }
    };
    let record = state.store.run(&id).await?;
    let status = record.map_or_else(|| "pending".to_owned(), |r| r.status);
    let code = if new {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((
        code,
        Json(json!({ "id": id, "status": status, "url": format!("/runs/{id}"), "new": new })),
    )
        .into_response())
}

/// `GET /runs/{id}`.
async fn run(State(state): State<ApiState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    match state.store.run(&id).await? {
        Some(record) => Ok(Json(record).into_response()),
        None => Err(ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}"))),
    }
}

/// `GET /runs/{id}/replay`: the replay as first uploaded (plain or gzip),
/// for the web viewer (`?src=…/runs/{id}/replay`) or a download.
async fn replay(
    State(state): State<ApiState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.store.replay_bytes(&id).await {
        Ok(bytes) => {
            Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
        }
        Err(sqlx::Error::RowNotFound) => {
            Err(ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}")))
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
struct LeaderboardQuery {
    limit: Option<u32>,
}

/// `GET /leaderboards/{track}/{class}?limit=N` (default 100).
async fn leaderboard(
    State(state): State<ApiState>,
    Path((track, class)): Path<(String, String)>,
    Query(query): Query<LeaderboardQuery>,
) -> Result<Response, ApiError> {
    let limit = query.limit.unwrap_or(100).min(MAX_LEADERBOARD_ROWS);
    let entries = state.store.leaderboard(&track, &class, limit).await?;
    Ok(Json(json!({ "track": track, "class": class, "entries": entries })).into_response())
}

/// Ghost bytes as a download.
fn ghost_response(run_id: &str, bytes: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{run_id}.skg\""),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// `GET /runs/{id}/ghost`: the run's fastest valid lap as a ghost (`.skg`),
/// cut by the race layer when the run was verified.
async fn run_ghost(
    State(state): State<ApiState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let bytes = state.store.ghost(&id).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no ghost for run {id}: it is not verified, or has no valid lap"),
        )
    })?;
    Ok(ghost_response(&id, bytes))
}

/// `GET /leaderboards/{track}/{class}/record/ghost`: the record's lap.
async fn record_ghost(
    State(state): State<ApiState>,
    Path((track, class)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let record = state.store.leaderboard(&track, &class, 1).await?;
    let Some(entry) = record.first() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no ranked lap on {track}/{class}"),
        ));
    };
    let bytes = state.store.ghost(&entry.run_id).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("the record run {} has no stored ghost", entry.run_id),
        )
    })?;
    Ok(ghost_response(&entry.run_id, bytes))
}

#[derive(Deserialize)]
struct AroundQuery {
    span: Option<u32>,
}

/// Most entries either side of a player `around` answers.
const MAX_SPAN: u32 = 50;

/// `GET /leaderboards/{track}/{class}/around/{player}?span=N` (default
/// 5): the player's rank and the entries `span` ranks either side, each
/// with the run id whose ghost `/runs/{id}/ghost` serves.
async fn around(
    State(state): State<ApiState>,
    Path((track, class, player)): Path<(String, String, String)>,
    Query(query): Query<AroundQuery>,
) -> Result<Response, ApiError> {
    let span = query.span.unwrap_or(5).min(MAX_SPAN);
    let rank = state
        .store
        .rank(&track, &class, &player)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!("{player} has no ranked lap on {track}/{class}"),
            )
        })?;
    let skip = rank.saturating_sub(span + 1);
    let entries = state
        .store
        .leaderboard_page(&track, &class, skip, 2 * span + 1)
        .await?;
    Ok(Json(json!({
        "track": track, "class": class, "player": player, "rank": rank, "entries": entries
    }))
    .into_response())
}

/// `GET /health/live`: the process answers (liveness: restart it if not).
/// Readiness, which needs the database, is `GET /health`.
async fn live() -> Response {
    Json(json!({ "status": "live" })).into_response()
}

/// The routes of a process running workers only (`--role worker
/// --serve-metrics`): its own `/metrics` (its workers' verdicts and
/// verification seconds, the shared queue's depth) and `/health/live`.
pub fn worker_router(store: Store, metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(worker_metrics))
        .route("/health/live", get(live))
        .with_state((store, metrics))
}

async fn worker_metrics(
    State((store, metrics)): State<(Store, Arc<Metrics>)>,
) -> Result<Response, ApiError> {
    let counts = store.queue_counts().await?;
    Ok(exposition(metrics.render(counts)))
}

/// `GET /metrics`: the Prometheus text exposition.
async fn metrics_text(State(state): State<ApiState>) -> Result<Response, ApiError> {
    let counts = state.store.queue_counts().await?;
    Ok(exposition(state.metrics.render(counts)))
}

/// `GET /health` (readiness): the database answers; queue depth.
async fn health(State(state): State<ApiState>) -> Result<Response, ApiError> {
    let queue = state.store.queue_counts().await?;
    Ok(Json(json!({
        "status": "ok",
        "simulation_version": skidpad_core::SIMULATION_VERSION,
        "queue": queue,
    }))
    .into_response())
}

/// `POST /runs/{id}/reverify`: re-simulates a stored run now (an older
/// simulation version's in its archived core) and says whether the result
/// agrees with the stored verdict (admin: it costs a core for as long as
/// the race). 429 while another re-verification runs.
async fn reverify_run(
    State(state): State<ApiState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    identity::admin(&state, &headers).await?;
    let Ok(_permit) = state.reverifying.clone().try_acquire_owned() else {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "a re-verification is running; try again when it ends",
        ));
    };
    let record = state
        .store
        .run(&id)
        .await?
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}")))?;
    let bytes = state.store.replay_bytes(&id).await?;
    let cores = state
        .cores
        .clone()
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e))?;
    let boards = state.fresh_boards().await;
    let found = tokio::task::spawn_blocking(move || {
        reverify(
            &bytes,
            record.outcome.as_ref(),
            &Limits::default(),
            &cores,
            boards.as_deref(),
        )
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    Ok(Json(json!({ "id": id, "reverification": found })).into_response())
}

/// `GET /versions`: the runs held per simulation version, and which core
/// can re-verify each (`native`, `archived` or `none`).
async fn versions(State(state): State<ApiState>) -> Result<Response, ApiError> {
    let counts = state.store.version_counts().await?;
    let archived: Vec<u32> = state
        .cores
        .as_ref()
        .map(|c| c.archive().versions())
        .unwrap_or_default();
    let rows: Vec<_> = counts
        .iter()
        .map(|c| {
            let archive = state.cores.as_ref().ok().map(|c| c.archive());
            let core = c
                .version
                .and_then(|v| u32::try_from(v).ok())
                .map_or("none", |v| CoreRoute::for_version(v, archive).name());
            json!({
                "simulation_version": c.version,
                "runs": c.runs,
                "verified": c.verified,
                "rejected": c.rejected,
                "pending": c.pending,
                "core": core,
            })
        })
        .collect();
    Ok(Json(json!({
        "current": skidpad_core::SIMULATION_VERSION,
        "archived": archived,
        "versions": rows,
    }))
    .into_response())
}
