//! Verifier workers: tasks that claim jobs from the database, re-simulate
//! on tokio's blocking threads and write the verdict. A worker holds a job
//! on a lease that it renews while the job runs; if the process dies
//! (kill -9, a crash, a lost machine), the lease passes and another worker
//! claims the job again, so nothing is lost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use skidpad_replay::Limits;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;

use crate::judge::judge_on;
use crate::metrics::Metrics;
use crate::outcome::{Outcome, Rejection};
use crate::registry::BoardRegistry;
use crate::seals::SealPolicy;
use crate::store::Store;

/// How workers run.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Worker tasks in this process.
    pub workers: usize,
    /// How long a claim lasts without renewal; a dead worker's job waits
    /// this long before another worker takes it.
    pub lease: Duration,
    /// How long an idle worker sleeps before polling again.
    pub poll: Duration,
    /// Claims of one job before it is rejected as failing workers.
    pub max_attempts: i64,
    /// The work budgets each replay is verified within.
    pub limits: Limits,
    /// Whose seals are trusted, and whether unsealed runs are ranked.
    pub seals: SealPolicy,
    /// Names this process's workers (`NAME/0`, `NAME/1`, …) in the jobs
    /// table.
    pub name: String,
    /// Where verdicts and verification times are counted (the API of the
    /// same process serves them).
    pub metrics: Arc<Metrics>,
    /// After a stop, how long a worker may go on with the job it holds;
    /// past it, the job is released to the queue (another worker claims
    /// it at once, not when the lease passes) and the worker stops.
    pub drain: Duration,
    /// The tracks registered with `--boards` or since (`POST /boards`),
    /// on which runs naming them are timed (the built-in tracks need
    /// none).
    pub boards: Option<Arc<BoardRegistry>>,
}

/// Drain window by default: inside a process manager's usual grace period
/// (systemd's 90 s, Kubernetes' 30 s).
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(20);

impl Default for WorkerOptions {
    fn default() -> Self {
        WorkerOptions {
            workers: std::thread::available_parallelism().map_or(1, usize::from),
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(200),
            max_attempts: 3,
            limits: Limits::default(),
            seals: SealPolicy::default(),
            name: format!("{}-{}", hostname(), std::process::id()),
            metrics: Arc::default(),
            drain: DEFAULT_DRAIN,
            boards: None,
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "host".to_owned())
}

/// Runs `options.workers` worker tasks until `stop` turns true; each
/// finishes the job it holds within `options.drain`, or releases it.
pub async fn run_workers(store: Store, options: WorkerOptions, stop: watch::Receiver<bool>) {
    let options = Arc::new(options);
    let mut tasks = JoinSet::new();
    for k in 0..options.workers.max(1) {
        let name = format!("{}/{k}", options.name);
        tasks.spawn(worker_loop(
            store.clone(),
            options.clone(),
            name,
            stop.clone(),
        ));
    }
    while tasks.join_next().await.is_some() {}
}

async fn worker_loop(
    store: Store,
    options: Arc<WorkerOptions>,
    name: String,
    mut stop: watch::Receiver<bool>,
) {
    while !*stop.borrow() {
        let worked = match work_once(&store, &options, &name, &stop).await {
            Ok(worked) => worked,
            Err(e) => {
                tracing::warn!(worker = %name, "queue error: {e}");
                false
            }
        };
        if !worked {
            tokio::select! {
                _ = tokio::time::sleep(options.poll) => {}
                _ = stop.changed() => {}
            }
        }
    }
}

/// Claims and verifies one job; false when there was none. Once `stop`
/// turns true the job has `options.drain` to finish.
pub async fn work_once(
    store: &Store,
    options: &WorkerOptions,
    name: &str,
    stop: &watch::Receiver<bool>,
) -> Result<bool, sqlx::Error> {
    store.give_up_exhausted(options.max_attempts).await?;
    let Some(claim) = store
        .claim(name, options.lease, options.max_attempts)
        .await?
    else {
        return Ok(false);
    };
    let span =
        tracing::info_span!("job", run = %claim.run_id, worker = %name, attempt = claim.attempts);
    verify_claimed(store, options, name, &claim.run_id, stop.clone())
        .instrument(span)
        .await?;
    Ok(true)
}

/// Writes a verdict, trying again while the database is away (a restart,
/// a failover) for up to one lease: a verdict is worth a wait, and once the
/// lease has passed another worker may hold the job, whose verdict counts
/// instead (the write checks who holds it).
async fn finish_patiently(
    store: &Store,
    run_id: &str,
    name: &str,
    outcome: &Outcome,
    lease: Duration,
) -> Result<bool, sqlx::Error> {
    let give_up = Instant::now() + lease;
    let mut wait = Duration::from_millis(100);
    loop {
        match store.finish(run_id, name, outcome).await {
            Ok(recorded) => return Ok(recorded),
            Err(e) if Instant::now() + wait < give_up => {
                tracing::warn!("could not write the verdict, trying again in {wait:?}: {e}");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Verifies a job this worker holds and writes its verdict, or releases
/// it when a stop's drain window passes first; every line it logs
/// carries the run id (its span).
async fn verify_claimed(
    store: &Store,
    options: &WorkerOptions,
    name: &str,
    run_id: &str,
    mut stop: watch::Receiver<bool>,
) -> Result<(), sqlx::Error> {
    let started = Instant::now();
    let bytes = store.replay_bytes(run_id).await?;
    let limits = options.limits;
    let seals = options.seals.clone();
    // A board registered since this worker loaded its boards (by any
    // process sharing the database) is read before the run is judged.
    let boards = match &options.boards {
        Some(registry) => {
            let header = skidpad_replay::read_replay_header(&bytes).ok();
            let key = header
                .as_ref()
                .and_then(|h| h.metadata_value(skidpad_replay::ReplayHeader::TRACK_KEY));
            Some(registry.knowing(key, store).await)
        }
        None => None,
    };
    let mut verifying =
        tokio::task::spawn_blocking(move || judge_on(&bytes, &limits, &seals, boards.as_deref()));
    // Renew the lease at a third of its length while the job runs.
    let mut renew = tokio::time::interval(options.lease / 3);
    renew.tick().await;
    // Armed when the stop comes.
    let mut drained: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    if *stop.borrow() {
        drained = Some(Box::pin(tokio::time::sleep(options.drain)));
    }
    let outcome = loop {
        tokio::select! {
            changed = stop.changed(), if drained.is_none() => {
                if changed.is_err() || *stop.borrow() {
                    tracing::info!(drain_seconds = options.drain.as_secs_f64(), "stopping: finishing the job within the drain window");
                    drained = Some(Box::pin(tokio::time::sleep(options.drain)));
                }
            }
            () = async { drained.as_mut().expect("armed").await }, if drained.is_some() => {
                // The blocking verification cannot be interrupted; the
                // process exits without waiting for it.
                let released = store.release(run_id, name).await?;
                tracing::info!(released, "drain window passed: job released to the queue");
                return Ok(());
            }
            done = &mut verifying => {
                break done.unwrap_or_else(|e| Outcome::Rejected {
                    reason: Rejection::Malformed {
                        message: format!("verification stopped with an internal error: {e}"),
                    },
                });
            }
            _ = renew.tick() => {
                // A database that is briefly away (a restart) costs a
                // renewal, not the verification: the next tick tries again.
                match store.renew(run_id, name, options.lease).await {
                    Ok(true) => {}
                    Ok(false) => tracing::warn!("lost the lease"),
                    Err(e) => tracing::warn!("could not renew the lease: {e}"),
                }
            }
        }
    };
    let recorded = finish_patiently(store, run_id, name, &outcome, options.lease).await?;
    let seconds = started.elapsed().as_secs_f64();
    if recorded {
        options.metrics.verdict(&outcome, seconds);
    }
    tracing::info!(verdict = outcome.kind(), recorded, seconds, "verified");
    Ok(())
}
