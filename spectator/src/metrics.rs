//! `GET /metrics` for the spectator service: requests by route and status,
//! live tails open, races on offer. One registry per service (no global
//! recorder), so services in one process count apart.

use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    /// The route's pattern (`/races/{id}/chunks/{n}`): one series per
    /// route, whatever paths clients send.
    route: String,
    code: u16,
}

/// The service's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    subscribers: Gauge,
    races: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("skidpad_spectator");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route and status code",
            requests.clone(),
        );
        let subscribers = Gauge::default();
        registry.register(
            "subscribers",
            "Live tails (/races/{id}/live) open now",
            subscribers.clone(),
        );
        let races = Gauge::default();
        registry.register("races", "Races on offer", races.clone());
        Metrics {
            registry,
            requests,
            subscribers,
            races,
        }
    }
}

impl Metrics {
    /// The text exposition, with the gauges read now.
    pub fn render(&self, subscribers: i64, races: i64) -> Response {
        self.subscribers.set(subscribers);
        self.races.set(races);
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response()
    }
}

/// The middleware counting every routed request. A live tail counts when
/// its stream starts (its status is known then).
pub async fn count_requests(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    let labels = RequestLabels {
        route,
        code: response.status().as_u16(),
    };
    metrics.requests.get_or_create(&labels).inc();
    response
}
