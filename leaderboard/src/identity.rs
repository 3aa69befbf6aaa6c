//! The HTTP side of identities: reading a request's bearer token, signing
//! up, and the admin routes (delete a run, ban a player). The queries are
//! in [`crate::accounts`].

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::accounts::{Caller, TokenCheck, check_player_name};
use crate::api::{ApiError, ApiState};

/// The caller a request's `Authorization: Bearer …` names; 401 without a
/// live token, 403 for a banned player.
pub(crate) async fn caller(state: &ApiState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let secret = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or_else(|| {
            unauthorized(
                "send a token: Authorization: Bearer skp_… (POST /players {\"name\": …} gives one)",
            )
        })?;
    match state.store.authenticate(secret).await? {
        TokenCheck::Valid(caller) => Ok(caller),
        TokenCheck::Unknown => Err(unauthorized("unknown or revoked token")),
        TokenCheck::Banned { player, reason } => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("player {player:?} is banned: {reason}"),
        )),
    }
}

/// [`caller`], who must hold an admin token.
pub(crate) async fn admin(state: &ApiState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let caller = caller(state, headers).await?;
    if !caller.admin {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this needs an admin token (skidpad-leaderboard token issue --admin)",
        ));
    }
    Ok(caller)
}

fn unauthorized(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, message).with_header(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"skidpad-leaderboard\""),
    )
}

#[derive(Deserialize)]
pub(crate) struct SignUp {
    name: String,
}

/// `POST /players {"name": …}`: claims a name and returns its token (the
/// only time it is shown). 409 when the name is taken, 403 when the
/// operator closed sign-up.
pub(crate) async fn sign_up(
    State(state): State<ApiState>,
    Json(body): Json<SignUp>,
) -> Result<Response, ApiError> {
    if !state.sign_up_open {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "sign-up is closed on this server: ask its operator for a token",
        ));
    }
    check_player_name(&body.name).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e))?;
    match state.store.sign_up(&body.name).await? {
        Some(token) => {
            tracing::info!(player = %body.name, "signed up");
            Ok((
                StatusCode::CREATED,
                Json(json!({ "player": body.name, "token": token })),
            )
                .into_response())
        }
        None => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("the name {:?} is taken", body.name),
        )),
    }
}

/// `GET /players/me`: whose token this is.
pub(crate) async fn me(
    State(state): State<ApiState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller(&state, &headers).await?;
    Ok(Json(json!({ "player": caller.player, "admin": caller.admin })).into_response())
}

/// `DELETE /runs/{id}` (admin): the run, its job and its replay.
pub(crate) async fn delete_run(
    State(state): State<ApiState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let admin = admin(&state, &headers).await?;
    if !state.store.delete_run(&id).await? {
        return Err(ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}")));
    }
    tracing::info!(run = %id, by = %admin.player, "run deleted");
    Ok(Json(json!({ "deleted": id })).into_response())
}

#[derive(Deserialize)]
pub(crate) struct Ban {
    #[serde(default)]
    reason: String,
}

/// `POST /players/{name}/ban {"reason": …}` (admin).
pub(crate) async fn ban(
    State(state): State<ApiState>,
    headers: HeaderMap,
    Path(player): Path<String>,
    Json(body): Json<Ban>,
) -> Result<Response, ApiError> {
    let admin = admin(&state, &headers).await?;
    if !state.store.ban(&player, &body.reason).await? {
        return Err(no_player(&player));
    }
    tracing::info!(%player, by = %admin.player, reason = %body.reason, "player banned");
    Ok(Json(json!({ "player": player, "banned": true, "reason": body.reason })).into_response())
}

/// `DELETE /players/{name}/ban` (admin).
pub(crate) async fn unban(
    State(state): State<ApiState>,
    headers: HeaderMap,
    Path(player): Path<String>,
) -> Result<Response, ApiError> {
    let admin = admin(&state, &headers).await?;
    if !state.store.unban(&player).await? {
        return Err(no_player(&player));
    }
    tracing::info!(%player, by = %admin.player, "ban lifted");
    Ok(Json(json!({ "player": player, "banned": false })).into_response())
}

fn no_player(player: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no player {player:?}"))
}

/// Checks that a replay's `player` metadata, when it has one, names the
/// caller: a run ranks under its submitter, and a replay that says
/// otherwise is someone else's run.
pub(crate) fn check_metadata_player(
    caller: &Caller,
    metadata_player: Option<&str>,
) -> Result<(), ApiError> {
    match metadata_player.map(str::trim) {
        Some(named) if !named.is_empty() && named != caller.player => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "the replay's metadata names player {named:?}, but the token is {:?}'s",
                caller.player
            ),
        )),
        _ => Ok(()),
    }
}
