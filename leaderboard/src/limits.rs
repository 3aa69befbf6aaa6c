//! What keeps one client from holding the API: a deadline on every
//! request (a slow upload is cut with `408`), and a per-address rate limit
//! on the routes that cost work (uploads and re-verifications answer `429`
//! with `Retry-After` past it). Both are tower layers (tower-http's
//! timeout, tower_governor's limiter keyed by the peer address); the
//! request line and headers have hyper's own 30 s deadline, which
//! `axum::serve` arms.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{Method, StatusCode};
use tower_governor::GovernorLayer;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::PeerIpKeyExtractor;
use tower_http::timeout::TimeoutLayer;

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

/// Puts the deadline on every route of `router`, and the rate limit (when
/// set) on its POST routes. The limiter keys on the peer address, so the
/// router must be served with `into_make_service_with_connect_info`.
pub fn limited<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    timeout: Duration,
    rate: Option<RateLimit>,
) -> Router<S> {
    let router = match rate {
        Some(rate) => {
            let config = GovernorConfigBuilder::default()
                .period(rate.every)
                .burst_size(rate.burst.max(1))
                .methods(vec![Method::POST])
                .key_extractor(PeerIpKeyExtractor)
                .finish()
                .map(Arc::new);
            match config {
                Some(config) => {
                    // Forget addresses back at a full budget every
                    // FORGET_EVERY, so the table does not keep every
                    // address ever seen.
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
                // A zero period: no budget to keep.
                None => router,
            }
        }
        None => router,
    };
    router.layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        timeout,
    ))
}
