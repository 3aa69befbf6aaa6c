//! `GET /boards`: the tracks and cars this service ranks, as a client
//! needs them to race there (`boards::listing`), registered ones included.
//! `POST /boards` (an admin token): an operator registers a board on the
//! running service, its track and cars written out in full in the body
//! (the same fields as a `--boards` file's board, with `track_definition`
//! and `{"definition": …}` cars where the file names files). Answered 201
//! with the board as `GET /boards` lists it; 409 when its track has a
//! board; 422 naming what does not read. The registry (`registry.rs`)
//! keeps it in the database for every process and restart.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::api::{ApiError, ApiState};
use crate::boards::listing;
use crate::identity;
use crate::registry::RegisterError;

/// `GET /boards`.
pub(crate) async fn boards_listing(State(state): State<ApiState>) -> Json<serde_json::Value> {
    Json(listing(state.fresh_boards().await.as_deref()))
}

/// `POST /boards` (admin).
pub(crate) async fn register_board(
    State(state): State<ApiState>,
    headers: HeaderMap,
    body: String,
) -> Result<Response, ApiError> {
    let admin = identity::admin(&state, &headers).await?;
    let Some(registry) = &state.boards else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "this service runs without --boards, ranking every built-in track and no other; \
             start it with a boards file to register boards",
        ));
    };
    let (key, boards) = registry
        .register(&body, &admin.player, &state.store)
        .await
        .map_err(|e| match e {
            RegisterError::Invalid(reason) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("the board does not read: {reason}"),
            ),
            RegisterError::Taken(_) => ApiError::new(StatusCode::CONFLICT, e.to_string()),
            RegisterError::Database(e) => e.into(),
        })?;
    tracing::info!(track = %key, by = %admin.player, "board registered");
    let listed = listing(Some(&boards));
    let board = listed
        .as_array()
        .and_then(|all| all.iter().find(|b| b["key"] == key.as_str()))
        .cloned()
        .unwrap_or_default();
    Ok((StatusCode::CREATED, Json(board)).into_response())
}
