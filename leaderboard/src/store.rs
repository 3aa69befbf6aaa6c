//! The database: replays, runs, submissions and the ranking. One set of
//! queries and migrations serves SQLite (the embedded default) and
//! PostgreSQL (many verifier nodes) through sqlx's Any driver. The
//! workers' side of the queue is in [`crate::queue`], players and tokens
//! in [`crate::accounts`].

use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Connection, Row};

use crate::outcome::Outcome;

/// Why `Store::backup_to` wrote nothing. Each says its cause once (a
/// configuration error of sqlx's repeated its message as its own source).
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The database is PostgreSQL's.
    #[error("backup copies SQLite databases; back PostgreSQL up with pg_dump")]
    NotSqlite,
    /// The file to write exists already.
    #[error("{} exists: back up to a new file", .0.display())]
    Exists(std::path::PathBuf),
    /// SQLite's `VACUUM INTO` takes the path as text.
    #[error("{} is not UTF-8", .0.display())]
    NotUtf8(std::path::PathBuf),
    /// The copy itself failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// The engines this service runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// A file, in-process: one command starts everything.
    Sqlite,
    /// A server that many API and worker processes share.
    Postgres,
}

impl FromStr for Engine {
    type Err = sqlx::Error;

    /// The engine a database URL names.
    fn from_str(url: &str) -> Result<Self, Self::Err> {
        if url.starts_with("sqlite:") {
            Ok(Engine::Sqlite)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Ok(Engine::Postgres)
        } else {
            Err(sqlx::Error::Configuration(
                format!("unsupported database URL {url:?}: use sqlite:PATH or postgres://…").into(),
            ))
        }
    }
}

/// A job a worker has claimed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The run to verify.
    pub run_id: String,
    /// Claims of this job so far, this one included.
    pub attempts: i64,
}

/// A run as `GET /runs/{id}` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRecord {
    /// The run id: blake3 of the decompressed replay, hex.
    pub id: String,
    /// `pending`, `verified` or `rejected`.
    pub status: String,
    /// When it was submitted, ms since the Unix epoch.
    pub submitted_ms: i64,
    /// When verification finished.
    pub finished_ms: Option<i64>,
    /// Claims of its job (1 unless a worker died on it).
    pub attempts: i64,
    /// The simulation version its replay was recorded with (`None`: the
    /// header is unreadable).
    pub simulation_version: Option<i64>,
    /// The player who submitted it (`None` for runs stored before
    /// identities: they rank under their metadata's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitter: Option<String>,
    /// The verdict, once there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

/// What [`Store::submit`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// A new run, queued for verification.
    New,
    /// The run was already stored, submitted by `submitter`.
    Existing {
        /// Who submitted it first.
        submitter: Option<String>,
    },
}

/// One row of a leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// 1 for the fastest.
    pub rank: u32,
    /// The player.
    pub player: String,
    /// Their best valid lap, s.
    pub lap_time: f64,
    /// The run it was driven in.
    pub run_id: String,
}

/// The runs of one simulation version, for `GET /versions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VersionCount {
    /// The simulation version (`None`: runs whose header is unreadable).
    pub version: Option<i64>,
    /// Runs in all.
    pub runs: i64,
    /// Verified (ranked).
    pub verified: i64,
    /// Rejected.
    pub rejected: i64,
    /// Not judged yet.
    pub pending: i64,
}

/// The simulation version a stored replay's header names.
fn simulation_version_of(bytes: &[u8]) -> Option<i64> {
    skidpad_replay::read_replay_header(bytes)
        .ok()
        .map(|h| i64::from(h.simulation_version))
}

/// Jobs by state, for `GET /health`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounts {
    /// Waiting for a worker.
    pub queued: i64,
    /// Claimed by a worker.
    pub running: i64,
    /// Verified or rejected.
    pub done: i64,
}

/// Milliseconds since the Unix epoch.
#[must_use]
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The service's database.
#[derive(Clone, Debug)]
pub struct Store {
    /// Shared with [`crate::accounts`], which adds the players' queries.
    pub(crate) pool: AnyPool,
    engine: Engine,
    /// On SQLite, uploads take turns here before they begin writing:
    /// SQLite runs one writer at a time, and writers that collide wait in
    /// its busy handler, which sleeps in growing steps (tens of ms each),
    /// so a queue in this process answers sooner than a collision.
    uploads: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Store {
    /// Connects to `url` (`sqlite:PATH` creates the file; `postgres://…`)
    /// and applies the migrations.
    pub async fn open(url: &str) -> Result<Store, sqlx::Error> {
        let engine: Engine = url.parse()?;
        install_default_drivers();
        let url = match engine {
            Engine::Sqlite if !url.contains("mode=") => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}mode=rwc")
            }
            _ => url.to_owned(),
        };
        // One connection first, on its own: the pool retries a refused
        // connection until its acquire timeout and then says only "pool
        // timed out"; a server that is down or a wrong password is named
        // at once this way.
        sqlx::AnyConnection::connect(&url).await?.close().await?;
        let pool = AnyPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(30))
            .connect(&url)
            .await?;
        if engine == Engine::Sqlite {
            // Readers do not wait for the writer; writers wait (sqlx's
            // default busy timeout) rather than fail.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await?;
        }
        sqlx::migrate!("./migrations").run(&pool).await?;
        let store = Store {
            pool,
            engine,
            uploads: std::sync::Arc::default(),
        };
        store.backfill_simulation_versions().await?;
        Ok(store)
    }

    /// Which engine this is.
    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Stores `bytes` (as uploaded) under `id`, submitted by `submitter`,
    /// and queues its verification in the submitter's next fair turn
    /// (see the migration `0003`), unless the run exists.
    pub async fn submit(
        &self,
        id: &str,
        bytes: &[u8],
        submitter: &str,
    ) -> Result<Submitted, sqlx::Error> {
        let now = now_ms();
        let _turn = match self.engine {
            Engine::Sqlite => Some(self.uploads.lock().await),
            Engine::Postgres => None,
        };
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO replays (hash, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING")
            .bind(id)
            .bind(bytes.to_vec())
            .bind(bytes.len() as i64)
            .execute(&mut *tx)
            .await?;
        let inserted = sqlx::query(
            "INSERT INTO runs (id, status, submitted_ms, simulation_version, submitter) VALUES ($1, 'pending', $2, $3, $4) ON CONFLICT (id) DO NOTHING",
        )
        .bind(id)
        .bind(now)
        .bind(simulation_version_of(bytes))
        .bind(submitter)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted != 1 {
            let submitter: Option<String> = sqlx::query("SELECT submitter FROM runs WHERE id = $1")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?
                .try_get("submitter")?;
            tx.commit().await?;
            return Ok(Submitted::Existing { submitter });
        }
        // Concurrent submissions on PostgreSQL may read the same turns and
        // tie; a tie is broken by age, so fairness holds within one job.
        let turn: i64 = sqlx::query(
            "SELECT MAX(t) AS turn FROM (
               SELECT COALESCE(MAX(turn), 0) + 1 AS t FROM jobs WHERE submitter = $1 AND state IN ('queued', 'running')
               UNION ALL
               SELECT COALESCE(MIN(turn), 0) AS t FROM jobs WHERE state = 'queued') AS turns",
        )
        .bind(submitter)
        .fetch_one(&mut *tx)
        .await?
        .try_get("turn")?;
        sqlx::query(
            "INSERT INTO jobs (run_id, state, enqueued_ms, attempts, submitter, turn) VALUES ($1, 'queued', $2, 0, $3, $4)",
        )
        .bind(id)
        .bind(now)
        .bind(submitter)
        .bind(turn)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Submitted::New)
    }

    /// Runs of `submitter` waiting for or under verification, counted up
    /// to `cap` (the answer is `cap` for any more): the check at upload
    /// reads at most `cap` rows however long a player's backlog is.
    pub async fn unfinished_jobs(&self, submitter: &str, cap: u32) -> Result<i64, sqlx::Error> {
        sqlx::query(
            "SELECT COUNT(*) AS n FROM (SELECT 1 FROM jobs WHERE submitter = $1 AND state IN ('queued', 'running') LIMIT $2) AS unfinished",
        )
        .bind(submitter)
        .bind(i64::from(cap))
        .fetch_one(&self.pool)
        .await?
        .try_get("n")
    }

    /// Fills in the simulation version of runs stored before the column
    /// existed, from their replays' headers; returns how many.
    pub async fn backfill_simulation_versions(&self) -> Result<u64, sqlx::Error> {
        // Ids first, then one replay at a time: a large board's bytes
        // never sit in memory together at start-up.
        let ids = sqlx::query("SELECT id FROM runs WHERE simulation_version IS NULL")
            .fetch_all(&self.pool)
            .await?;
        let mut filled = 0;
        for row in ids {
            let id: String = row.try_get("id")?;
            let bytes = self.replay_bytes(&id).await?;
            let Some(version) = simulation_version_of(&bytes) else {
                continue;
            };
            filled += sqlx::query("UPDATE runs SET simulation_version = $1 WHERE id = $2")
                .bind(version)
                .bind(id)
                .execute(&self.pool)
                .await?
                .rows_affected();
        }
        Ok(filled)
    }

    /// Runs per simulation version and status, ascending by version (runs
    /// whose replay has no readable header last, as version `None`).
    pub async fn version_counts(&self) -> Result<Vec<VersionCount>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT simulation_version, status, COUNT(*) AS n FROM runs
             GROUP BY simulation_version, status",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut counts: Vec<VersionCount> = Vec::new();
        for row in rows {
            let version: Option<i64> = row.try_get("simulation_version")?;
            let n: i64 = row.try_get("n")?;
            let status: String = row.try_get("status")?;
            let at = match counts.iter().position(|c| c.version == version) {
                Some(at) => at,
                None => {
                    counts.push(VersionCount {
                        version,
                        ..VersionCount::default()
                    });
                    counts.len() - 1
                }
            };
            let count = &mut counts[at];
            count.runs += n;
            match status.as_str() {
                "verified" => count.verified += n,
                "rejected" => count.rejected += n,
                _ => count.pending += n,
            }
        }
        counts.sort_by_key(|c| (c.version.is_none(), c.version));
        Ok(counts)
    }

    /// A run and its verdict.
    pub async fn run(&self, id: &str) -> Result<Option<RunRecord>, sqlx::Error> {
        let row = sqlx::query(
            "SELECT r.id, r.status, r.submitted_ms, r.finished_ms, r.outcome, r.simulation_version, r.submitter, j.attempts
             FROM runs r JOIN jobs j ON j.run_id = r.id WHERE r.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let outcome: Option<String> = row.try_get("outcome")?;
        Ok(Some(RunRecord {
            id: row.try_get("id")?,
            status: row.try_get("status")?,
            submitted_ms: row.try_get("submitted_ms")?,
            finished_ms: row.try_get("finished_ms")?,
            attempts: row.try_get("attempts")?,
            simulation_version: row.try_get("simulation_version")?,
            submitter: row.try_get("submitter")?,
            outcome: outcome.and_then(|o| serde_json::from_str(&o).ok()),
        }))
    }

    /// The uploaded bytes of a run.
    pub async fn replay_bytes(&self, id: &str) -> Result<Vec<u8>, sqlx::Error> {
        sqlx::query("SELECT bytes FROM replays WHERE hash = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?
            .try_get("bytes")
    }

    /// The best valid lap of each player on `track` in `class`, fastest
    /// first (ties: the earlier run id); banned players are left out.
    pub async fn leaderboard(
        &self,
        track: &str,
        class: &str,
        limit: u32,
    ) -> Result<Vec<Entry>, sqlx::Error> {
        self.leaderboard_page(track, class, 0, limit).await
    }

    /// The board from rank `skip + 1`, at most `limit` entries.
    pub async fn leaderboard_page(
        &self,
        track: &str,
        class: &str,
        skip: u32,
        limit: u32,
    ) -> Result<Vec<Entry>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT r.player, r.best_lap, r.id FROM runs r
             WHERE r.track = $1 AND r.class = $2 AND r.status = 'verified' AND r.best_lap IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM players p WHERE p.name = r.player AND p.banned_ms IS NOT NULL)
               AND NOT EXISTS (
                 SELECT 1 FROM runs o
                 WHERE o.track = r.track AND o.class = r.class AND o.player = r.player
                   AND o.status = 'verified' AND o.best_lap IS NOT NULL
                   AND (o.best_lap < r.best_lap OR (o.best_lap = r.best_lap AND o.id < r.id)))
             ORDER BY r.best_lap, r.id
             LIMIT $3 OFFSET $4",
        )
        .bind(track)
        .bind(class)
        .bind(i64::from(limit))
        .bind(i64::from(skip))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .enumerate()
            .map(|(k, row)| {
                Ok(Entry {
                    rank: skip + k as u32 + 1,
                    player: row.try_get("player")?,
                    lap_time: row.try_get("best_lap")?,
                    run_id: row.try_get("id")?,
                })
            })
            .collect()
    }

    /// `player`'s rank on a board (1 = the record), or `None` when they
    /// have no ranked lap there.
    pub async fn rank(
        &self,
        track: &str,
        class: &str,
        player: &str,
    ) -> Result<Option<u32>, sqlx::Error> {
        let Some(row) = sqlx::query(
            "SELECT best_lap, id FROM runs
             WHERE track = $1 AND class = $2 AND player = $3 AND status = 'verified' AND best_lap IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM players p WHERE p.name = $3 AND p.banned_ms IS NOT NULL)
             ORDER BY best_lap, id LIMIT 1",
        )
        .bind(track)
        .bind(class)
        .bind(player)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let best: f64 = row.try_get("best_lap")?;
        let id: String = row.try_get("id")?;
        // Players ranked ahead: those whose own best run comes first.
        let ahead: i64 = sqlx::query(
            "SELECT COUNT(DISTINCT r.player) AS ahead FROM runs r
             WHERE r.track = $1 AND r.class = $2 AND r.status = 'verified' AND r.best_lap IS NOT NULL
               AND r.player <> $3
               AND (r.best_lap < $4 OR (r.best_lap = $4 AND r.id < $5))
               AND NOT EXISTS (SELECT 1 FROM players p WHERE p.name = r.player AND p.banned_ms IS NOT NULL)",
        )
        .bind(track)
        .bind(class)
        .bind(player)
        .bind(best)
        .bind(&id)
        .fetch_one(&self.pool)
        .await?
        .try_get("ahead")?;
        Ok(Some(u32::try_from(ahead).unwrap_or(u32::MAX - 1) + 1))
    }

    /// The ghost of a run's fastest valid lap (`.skg` bytes), if it has one.
    pub async fn ghost(&self, run_id: &str) -> Result<Option<Vec<u8>>, sqlx::Error> {
        sqlx::query("SELECT bytes FROM ghosts WHERE run_id = $1")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|row| row.try_get("bytes"))
            .transpose()
    }

    /// Keeps a board an operator registered (`board` its JSON, written out
    /// in full) under its track's key; false when that track has a
    /// registered board already.
    pub async fn register_board(
        &self,
        track_key: &str,
        board: &str,
        by: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "INSERT INTO registered_boards (track_key, board, registered_ms, registered_by)
             VALUES ($1, $2, $3, $4) ON CONFLICT (track_key) DO NOTHING",
        )
        .bind(track_key)
        .bind(board)
        .bind(now_ms())
        .bind(by)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Every registered board's JSON, in the order they were registered.
    pub async fn registered_boards(&self) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query("SELECT board FROM registered_boards ORDER BY registered_ms, track_key")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|row| row.try_get("board"))
            .collect()
    }

    /// How many boards are registered: a process compares it with what
    /// it loaded to see whether another registered one since.
    pub async fn registered_board_count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM registered_boards")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    /// Writes a consistent copy of a SQLite database to `to` (which must
    /// not exist) while writers go on: SQLite's `VACUUM INTO` reads one
    /// snapshot. PostgreSQL is refused: pg_dump does this there.
    pub async fn backup_to(&self, to: &std::path::Path) -> Result<(), BackupError> {
        if self.engine != Engine::Sqlite {
            return Err(BackupError::NotSqlite);
        }
        if to.exists() {
            return Err(BackupError::Exists(to.to_owned()));
        }
        let path = to
            .to_str()
            .ok_or_else(|| BackupError::NotUtf8(to.to_owned()))?;
        sqlx::query("VACUUM INTO $1")
            .bind(path)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Jobs by state.
    pub async fn queue_counts(&self) -> Result<QueueCounts, sqlx::Error> {
        let rows = sqlx::query("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state")
            .fetch_all(&self.pool)
            .await?;
        let mut counts = QueueCounts::default();
        for row in rows {
            let n: i64 = row.try_get("n")?;
            match row.try_get::<String, _>("state")?.as_str() {
                "queued" => counts.queued = n,
                "running" => counts.running = n,
                _ => counts.done += n,
            }
        }
        Ok(counts)
    }
}
