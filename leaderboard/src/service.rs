//! Starting the service: the API, workers, or both, until shutdown.

use std::future::Future;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::api::{ApiOptions, router, worker_router};
use crate::store::Store;
use crate::worker::{WorkerOptions, run_workers};

/// What this process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The API and workers (the single-machine default).
    All,
    /// The HTTP API only; workers run elsewhere on the same database.
    Api,
    /// Workers only.
    Worker,
}

/// Runs `role` on `store` until `shutdown` resolves. The API answers on
/// `listener` (required unless the role is `Worker`, whose listener, when
/// given, serves its metrics); workers finish the job they hold before
/// returning.
pub async fn serve(
    store: Store,
    role: Role,
    listener: Option<TcpListener>,
    api: ApiOptions,
    workers: WorkerOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let metrics = workers.metrics.clone();
    let worker_task = (role != Role::Api)
        .then(|| tokio::spawn(run_workers(store.clone(), workers, stop_rx.clone())));
    let result = match (role, listener) {
        (Role::Worker, None) => {
            shutdown.await;
            Ok(())
        }
        (Role::Worker, Some(listener)) => {
            axum::serve(listener, worker_router(store, metrics))
                .with_graceful_shutdown(shutdown)
                .await
        }
        (_, Some(listener)) => {
            let app = router(store, api, metrics);
            // The peer's address keys the upload rate limit.
            let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
        }
        (_, None) => Err(std::io::Error::other("the API needs a listening socket")),
    };
    let _ = stop_tx.send(true);
    if let Some(task) = worker_task {
        let _ = task.await;
    }
    result
}
