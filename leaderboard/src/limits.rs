//! What keeps one client from holding the API: a deadline on every
//! request (a slow upload is cut with `408`), and rate limits on the
//! routes that cost work (uploads, sign-ups and re-verifications answer
//! `429` with `Retry-After` past them), one per address and one per
//! player's token, so neither many addresses nor many players behind one
//! address get around them. All are tower layers (tower-http's timeout,
//! tower_governor's limiters); the request line and headers have hyper's
//! own 30 s deadline, which `axum::serve` arms.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::{KeyExtractor, PeerIpKeyExtractor};
use tower_governor::{GovernorError, GovernorLayer};
use tower_http::timeout::TimeoutLayer;

use crate::in_flight::{InFlight, cap_in_flight};

/// Whole-request deadline by default: headers, body and the answer. A 16
/// MiB upload needs about 0.3 MB/s to make it.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A per-address budget of costly requests: `burst` at once, one more
/// every `every`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Time to earn back one request.
    pub every: Duration,
    /// Requests an address may make at once.
    pub burst: u32,
}

impl Default for RateLimit {
    /// Ten uploads at once, then one a second: a player submits a run a
    /// lap at best, a script of one address cannot flood the queue.
    fn default() -> Self {
        RateLimit {
            every: Duration::from_secs(1),
            burst: 10,
        }
    }
}

/// How often the limiter forgets addresses that are back to a full
/// budget, so its table does not grow with every address ever seen.
const FORGET_EVERY: Duration = Duration::from_secs(60);

/// Who a request counts against in the per-player limit: the token it
/// carries (by hash, so the limiter's table holds no secret), or its
/// address when it carries none (a sign-up), so requests without a token
/// do not share one budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenKeyExtractor;

/// A [`TokenKeyExtractor`] key.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Submitter {
    /// blake3 of the bearer token.
    Token([u8; 32]),
    /// No token: the peer address.
    Address(IpAddr),
}

impl KeyExtractor for TokenKeyExtractor {
    type Key = Submitter;

    fn extract<T>(&self, request: &Request<T>) -> Result<Submitter, GovernorError> {
        let token = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if let Some(token) = token {
            return Ok(Submitter::Token(
                *blake3::hash(token.trim().as_bytes()).as_bytes(),
            ));
        }
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| Submitter::Address(c.0.ip()))
            .ok_or(GovernorError::UnableToExtractKey)
    }
}

/// The POST routes' limiter keyed by `key`, or `None` for a zero period
/// (no budget to keep).
fn rate_limited<S, K>(router: Router<S>, rate: RateLimit, key: K) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    K: KeyExtractor + Send + Sync + 'static,
    K::Key: Send + Sync + 'static,
{
    let config = GovernorConfigBuilder::default()
        .period(rate.every)
        .burst_size(rate.burst.max(1))
        .methods(vec![Method::POST])
        .key_extractor(key)
        .finish()
        .map(Arc::new);
    let Some(config) = config else {
        return router;
    };
    // Forget keys back at a full budget every FORGET_EVERY, so the table
    // does not keep every address or token ever seen.
    let limiter = config.limiter().clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(FORGET_EVERY);
            loop {
                tick.tick().await;
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        });
    }
    router.layer(GovernorLayer::new(config))
}

/// Puts the deadline on every route of `router`, the cap on requests in
/// flight per address (`in_flight`, when not 0; `in_flight.rs`), and the
/// rate limits (when set) on its POST routes: `per_address` keyed by the
/// peer address (the router must be served with
/// `into_make_service_with_connect_info`), `per_player` by the request's
/// token.
pub fn limited<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    (timeout, in_flight): (Duration, u32),
    per_address: Option<RateLimit>,
    per_player: Option<RateLimit>,
) -> Router<S> {
    let router = match per_player {
        Some(rate) => rate_limited(router, rate, TokenKeyExtractor),
        None => router,
    };
    let router = match per_address {
        Some(rate) => rate_limited(router, rate, PeerIpKeyExtractor),
        None => router,
    };
    let router = router.layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        timeout,
    ));
    if in_flight == 0 {
        return router;
    }
    router.layer(axum::middleware::from_fn_with_state(
        InFlight::new(in_flight),
        cap_in_flight,
    ))
}
