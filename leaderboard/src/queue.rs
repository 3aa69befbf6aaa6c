//! The verification queue's side of the database: workers claim jobs on
//! leases, renew them, release them when they stop, and write verdicts.
//! Only the claim differs between engines, because only PostgreSQL has
//! `FOR UPDATE SKIP LOCKED` (SQLite serialises writers, so its plain
//! `UPDATE … RETURNING` is already atomic). Jobs are claimed in their
//! fair turn (see the migration `0003`).

use std::time::Duration;

use sqlx::Row;

use crate::outcome::{Outcome, Rejection};
use crate::store::{Claim, Engine, Store, now_ms};

const CLAIM_SQLITE: &str = "UPDATE jobs SET state = 'running', worker = $1, lease_until_ms = $2, attempts = attempts + 1
     WHERE run_id = (SELECT run_id FROM jobs
                     WHERE (state = 'queued' OR (state = 'running' AND lease_until_ms < $3)) AND attempts < $4
                     ORDER BY turn, enqueued_ms, run_id LIMIT 1)
     RETURNING run_id, attempts";

const CLAIM_POSTGRES: &str = "UPDATE jobs SET state = 'running', worker = $1, lease_until_ms = $2, attempts = attempts + 1
     WHERE run_id = (SELECT run_id FROM jobs
                     WHERE (state = 'queued' OR (state = 'running' AND lease_until_ms < $3)) AND attempts < $4
                     ORDER BY turn, enqueued_ms, run_id LIMIT 1
                     FOR UPDATE SKIP LOCKED)
     RETURNING run_id, attempts";

impl Store {
    /// Claims the oldest job that is queued, or running on a lease that
    /// has passed (its worker died), for `lease`; jobs claimed
    /// `max_attempts` times are left to [`Store::give_up_exhausted`].
    pub async fn claim(
        &self,
        worker: &str,
        lease: Duration,
        max_attempts: i64,
    ) -> Result<Option<Claim>, sqlx::Error> {
        let now = now_ms();
        let sql = match self.engine() {
            Engine::Sqlite => CLAIM_SQLITE,
            Engine::Postgres => CLAIM_POSTGRES,
        };
        let row = sqlx::query(sql)
            .bind(worker)
            .bind(now + lease.as_millis() as i64)
            .bind(now)
            .bind(max_attempts)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok(Claim {
                run_id: r.try_get("run_id")?,
                attempts: r.try_get("attempts")?,
            })
        })
        .transpose()
    }

    /// Extends a claim; false if this worker no longer holds the job.
    pub async fn renew(
        &self,
        run_id: &str,
        worker: &str,
        lease: Duration,
    ) -> Result<bool, sqlx::Error> {
        let until = now_ms() + lease.as_millis() as i64;
        let rows = sqlx::query(
            "UPDATE jobs SET lease_until_ms = $1 WHERE run_id = $2 AND worker = $3 AND state = 'running'",
        )
        .bind(until)
        .bind(run_id)
        .bind(worker)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(rows == 1)
    }

    /// Puts a job this worker holds back in the queue, as it was before
    /// the claim (the claim does not count as an attempt: the worker
    /// stopped, the job did not kill it). False if it no longer held it.
    pub async fn release(&self, run_id: &str, worker: &str) -> Result<bool, sqlx::Error> {
        let rows = sqlx::query(
            "UPDATE jobs SET state = 'queued', worker = NULL, lease_until_ms = NULL, attempts = attempts - 1
             WHERE run_id = $1 AND worker = $2 AND state = 'running'",
        )
        .bind(run_id)
        .bind(worker)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(rows == 1)
    }

    /// Records the verdict if this worker still holds the job (a worker
    /// whose lease passed and whose job was re-claimed writes nothing).
    /// Returns whether it was recorded.
    pub async fn finish(
        &self,
        run_id: &str,
        worker: &str,
        outcome: &Outcome,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let held = sqlx::query(
            "UPDATE jobs SET state = 'done', lease_until_ms = NULL WHERE run_id = $1 AND worker = $2 AND state = 'running'",
        )
        .bind(run_id)
        .bind(worker)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if held != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        write_outcome(&mut tx, run_id, outcome).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Rejects the jobs that workers died on `max_attempts` times; returns
    /// how many.
    pub async fn give_up_exhausted(&self, max_attempts: i64) -> Result<u64, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(
            "SELECT run_id, attempts FROM jobs WHERE state = 'running' AND lease_until_ms < $1 AND attempts >= $2",
        )
        .bind(now_ms())
        .bind(max_attempts)
        .fetch_all(&mut *tx)
        .await?;
        for row in &rows {
            let run_id: String = row.try_get("run_id")?;
            let attempts: i64 = row.try_get("attempts")?;
            sqlx::query("UPDATE jobs SET state = 'done', lease_until_ms = NULL WHERE run_id = $1")
                .bind(&run_id)
                .execute(&mut *tx)
                .await?;
            let outcome = Outcome::Rejected {
                reason: Rejection::WorkerFailures {
                    attempts: attempts as u64,
                    message: format!("{attempts} workers stopped while verifying this run"),
                },
            };
            write_outcome(&mut tx, &run_id, &outcome).await?;
        }
        tx.commit().await?;
        Ok(rows.len() as u64)
    }
}

/// Writes a verdict. A verified run ranks under its submitter's name when
/// it has one (the metadata's `player` was checked against it at upload,
/// and may be absent), so the stored outcome says that name too.
async fn write_outcome(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    run_id: &str,
    outcome: &Outcome,
) -> Result<(), sqlx::Error> {
    let submitter: Option<String> = sqlx::query("SELECT submitter FROM runs WHERE id = $1")
        .bind(run_id)
        .fetch_optional(&mut **tx)
        .await?
        .map(|row| row.try_get("submitter"))
        .transpose()?
        .flatten();
    let mut outcome = outcome.clone();
    if let (Outcome::Verified(v), Some(submitter)) = (&mut outcome, submitter) {
        v.player = submitter;
    }
    let json = serde_json::to_string(&outcome).map_err(|e| sqlx::Error::Encode(e.into()))?;
    let (track, class, player, best) = match &outcome {
        Outcome::Verified(v) => (
            Some(v.track.clone()),
            Some(v.class.clone()),
            Some(v.player.clone()),
            v.ranked_lap(),
        ),
        Outcome::Rejected { .. } => (None, None, None, None),
    };
    sqlx::query(
        "UPDATE runs SET status = $2, finished_ms = $3, track = $4, class = $5, player = $6, best_lap = $7, outcome = $8
         WHERE id = $1",
    )
    .bind(run_id)
    .bind(outcome.status())
    .bind(now_ms())
    .bind(track)
    .bind(class)
    .bind(player)
    .bind(best)
    .bind(json)
    .execute(&mut **tx)
    .await?;
    if let Outcome::Verified(verified) = &outcome
        && let Some(ghost) = &verified.best_lap_ghost
    {
        sqlx::query(
            "INSERT INTO ghosts (run_id, bytes) VALUES ($1, $2)
             ON CONFLICT (run_id) DO UPDATE SET bytes = excluded.bytes",
        )
        .bind(run_id)
        .bind(ghost.as_slice())
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
