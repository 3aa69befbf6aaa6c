//! What an operator's Prometheus scrapes from `GET /metrics`: requests by
//! route and status, the queue's depth, verification seconds and verdicts
//! by kind. One registry per service (no process-wide recorder), so two
//! services in one process (the tests) count apart.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::outcome::Outcome;
use crate::store::QueueCounts;

/// The content type of the text exposition format the registry writes.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    /// The route's pattern (`/runs/{id}`), never the raw path: one series
    /// per route, whatever ids strangers send.
    route: String,
    code: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerdictLabels {
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    state: &'static str,
}

/// The service's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RequestLabels, Histogram>,
    verification_seconds: Histogram,
    verdicts: Family<VerdictLabels, Counter>,
    queue: Family<QueueLabels, Gauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("skidpad_leaderboard");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status code",
            requests.clone(),
        );
        let request_seconds = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            // 1 ms to about 33 s.
            Histogram::new(exponential_buckets(0.001, 2.0, 16))
        });
        registry.register(
            "http_request_seconds",
            "Time to answer an HTTP request, by method, route and status code",
            request_seconds.clone(),
        );
        // 10 ms to about 5.5 min: a lap of one car verifies in about a
        // second, the board's largest budget in a few minutes.
        let verification_seconds = Histogram::new(exponential_buckets(0.01, 2.0, 16));
        registry.register(
            "verification_seconds",
            "Wall time of one verification by this process's workers",
            verification_seconds.clone(),
        );
        let verdicts = Family::<VerdictLabels, Counter>::default();
        registry.register(
            "verdicts",
            "Verdicts written by this process's workers, by kind (verified or the rejection's kind)",
            verdicts.clone(),
        );
        let queue = Family::<QueueLabels, Gauge>::default();
        registry.register(
            "jobs",
            "Jobs in the shared queue by state, read from the database at each scrape",
            queue.clone(),
        );
        Metrics {
            registry,
            requests,
            request_seconds,
            verification_seconds,
            verdicts,
            queue,
        }
    }
}

impl Metrics {
    /// Counts a verdict a worker wrote after `seconds` of verification.
    pub fn verdict(&self, outcome: &Outcome, seconds: f64) {
        self.verification_seconds.observe(seconds);
        self.verdicts
            .get_or_create(&VerdictLabels {
                kind: outcome.kind(),
            })
            .inc();
    }

    /// The text exposition, with the queue as `counts` shows it.
    pub fn render(&self, counts: QueueCounts) -> String {
        for (state, n) in [
            ("queued", counts.queued),
            ("running", counts.running),
            ("done", counts.done),
        ] {
            self.queue.get_or_create(&QueueLabels { state }).set(n);
        }
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// The middleware that counts and times every request by its route.
pub async fn count_requests(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    let labels = RequestLabels {
        method,
        route,
        code: response.status().as_u16(),
    };
    metrics.requests.get_or_create(&labels).inc();
    metrics
        .request_seconds
        .get_or_create(&labels)
        .observe(started.elapsed().as_secs_f64());
    response
}

/// A `/metrics` answer of `text`.
pub fn exposition(text: String) -> Response {
    ([(header::CONTENT_TYPE, OPENMETRICS)], text).into_response()
}
