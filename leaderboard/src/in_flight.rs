//! A cap on the requests one address has in flight at once. The rate
//! limits bound how fast an address starts costly requests and the
//! deadline how long any request may take; this bounds how many it may
//! hold open together (uploads trickling in, say), so one address cannot
//! take the server's connections from everyone else. Past the cap: `429`
//! with `Retry-After`. A request holds its place until its answer is
//! made or it is dropped (the client went away, the deadline cut it).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Requests one address may have in flight by default: a page and a
/// player's uploads stay far inside it; a slow-loris client stops there.
pub const DEFAULT_REQUESTS_PER_ADDRESS: u32 = 32;

/// Requests in flight per address, with the cap.
#[derive(Debug)]
pub struct InFlight {
    cap: u32,
    held: Mutex<HashMap<IpAddr, u32>>,
}

/// One request's place; dropping it frees the place.
#[derive(Debug)]
struct Place {
    table: Arc<InFlight>,
    address: IpAddr,
}

impl InFlight {
    /// A table allowing `cap` requests in flight per address.
    #[must_use]
    pub fn new(cap: u32) -> Arc<InFlight> {
        Arc::new(InFlight {
            cap,
            held: Mutex::new(HashMap::new()),
        })
    }

    fn take(self: &Arc<Self>, address: IpAddr) -> Option<Place> {
        let mut held = self.held.lock().ok()?;
        let count = held.entry(address).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(Place {
            table: self.clone(),
            address,
        })
    }

    /// Addresses holding a request now, for tests.
    #[must_use]
    pub fn addresses(&self) -> usize {
        self.held.lock().map_or(0, |held| held.len())
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Ok(mut held) = self.table.held.lock()
            && let Some(count) = held.get_mut(&self.address)
        {
            *count -= 1;
            // An address with nothing in flight leaves the table, which
            // so holds only the addresses being served.
            if *count == 0 {
                held.remove(&self.address);
            }
        }
    }
}

/// The middleware: a place for the request's peer address, or `429`. A
/// router served without connect info (a library caller's own server)
/// has no address to count, and passes.
pub async fn cap_in_flight(
    State(table): State<Arc<InFlight>>,
    request: Request,
    next: Next,
) -> Response {
    let address = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let place = match address {
        Some(address) => match table.take(address) {
            Some(place) => Some(place),
            None => {
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "1")],
                    format!(
                        "this address has {} requests in flight, the most allowed at once\n",
                        table.cap
                    ),
                )
                    .into_response();
            }
        },
        None => None,
    };
    let response = next.run(request).await;
    drop(place);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_capped_per_address_and_freed_on_drop() {
        let table = InFlight::new(2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = table.take(a).unwrap();
        let second = table.take(a).unwrap();
        assert!(table.take(a).is_none());
        let other = table.take(b).unwrap();
        drop(first);
        assert!(table.take(a).is_some());
        drop((second, other));
        assert_eq!(table.addresses(), 0, "empty addresses leave the table");
    }
}
