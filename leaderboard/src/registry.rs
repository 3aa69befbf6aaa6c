//! The boards a running service ranks: its `--boards` file's, and those an
//! operator registered since (`POST /boards` with an admin token,
//! `board_admin.rs`), which the database keeps. Every process sharing the
//! database (API nodes, workers) and every restart ranks them too: a
//! process reloads the registered boards when a run names a track it does
//! not know, and when the database holds another number of them than it
//! loaded (`GET /boards`).

use std::sync::{Arc, RwLock};

use crate::boards::{BoardRules, Boards};
use crate::store::Store;

/// The boards, as last loaded.
#[derive(Debug)]
pub struct BoardRegistry {
    /// The `--boards` file's, which registrations add to.
    from_file: Boards,
    current: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    boards: Arc<Boards>,
    /// Registered boards in the database when these were loaded.
    registered: i64,
    /// Each registered board's JSON and the board built from it, so a
    /// reload builds only new ones (a track's ground takes a while).
    built: Vec<(String, BoardRules)>,
}

/// Why a registration was refused.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// The board does not read or build; the reason names the field.
    #[error("{0}")]
    Invalid(String),
    /// Its track has a board already (the file's or a registered one).
    #[error("track {0} has a board already")]
    Taken(String),
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

impl BoardRegistry {
    /// The file's boards; registered ones are loaded by the first
    /// [`fresh`](Self::fresh) or [`knowing`](Self::knowing).
    #[must_use]
    pub fn new(from_file: Boards) -> BoardRegistry {
        BoardRegistry {
            current: RwLock::new(Loaded {
                boards: Arc::new(from_file.clone()),
                registered: 0,
                built: Vec::new(),
            }),
            from_file,
        }
    }

    /// The boards as last loaded.
    #[must_use]
    pub fn current(&self) -> Arc<Boards> {
        self.loaded().boards.clone()
    }

    fn loaded(&self) -> std::sync::RwLockReadGuard<'_, Loaded> {
        // A panic while holding the lock left a whole value behind (it is
        // only ever replaced whole).
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The boards, reloaded first when the database holds another number
    /// of registered boards than were loaded. A database error keeps what
    /// was loaded (logged).
    pub async fn fresh(&self, store: &Store) -> Arc<Boards> {
        let loaded = self.loaded().registered;
        match store.registered_board_count().await {
            Ok(count) if count == loaded => self.current(),
            Ok(_) => self.reload(store).await,
            Err(e) => {
                tracing::warn!(error = %e, "cannot count the registered boards; ranking the ones loaded");
                self.current()
            }
        }
    }

    /// The boards, with `key`'s if anyone registered it: reloaded when
    /// the boards loaded do not know it.
    pub async fn knowing(&self, key: Option<&str>, store: &Store) -> Arc<Boards> {
        let current = self.current();
        match key {
            Some(key) if current.board(key).is_none() => self.fresh(store).await,
            _ => current,
        }
    }

    /// Reads every registered board again. One that no longer builds (a
    /// preset renamed since) is left out, logged; the rest still rank.
    async fn reload(&self, store: &Store) -> Arc<Boards> {
        let (specs, count) = match (
            store.registered_boards().await,
            store.registered_board_count().await,
        ) {
            (Ok(specs), Ok(count)) => (specs, count),
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!(error = %e, "cannot read the registered boards; ranking the ones loaded");
                return self.current();
            }
        };
        let from_file = self.from_file.clone();
        let known = self.loaded().built.clone();
        let rebuilt = tokio::task::spawn_blocking(move || {
            let mut built = Vec::with_capacity(specs.len());
            let mut boards = from_file;
            for spec in specs {
                let board = match known.iter().find(|(json, _)| *json == spec) {
                    Some((_, board)) => Ok(board.clone()),
                    None => BoardRules::registered(&spec),
                };
                match board.and_then(|board| Ok((boards.with(board.clone())?, board))) {
                    Ok((more, board)) => {
                        boards = more;
                        built.push((spec, board));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "a registered board no longer builds; left out");
                    }
                }
            }
            (boards, built)
        })
        .await;
        let Ok((boards, built)) = rebuilt else {
            return self.current();
        };
        let boards = Arc::new(boards);
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Loaded {
            boards: boards.clone(),
            registered: count,
            built,
        };
        boards
    }

    /// Registers the board `json` gives (`BoardRules::registered`) for
    /// `by`, keeps it in the database and ranks it from now on; returns
    /// the boards with it.
    pub async fn register(
        &self,
        json: &str,
        by: &str,
        store: &Store,
    ) -> Result<(String, Arc<Boards>), RegisterError> {
        let text = json.to_owned();
        let board = tokio::task::spawn_blocking(move || BoardRules::registered(&text))
            .await
            .map_err(|e| RegisterError::Invalid(e.to_string()))?
            .map_err(RegisterError::Invalid)?;
        let key = board.key.clone();
        if self.knowing(Some(&key), store).await.board(&key).is_some()
            || !store.register_board(&key, json, by).await?
        {
            return Err(RegisterError::Taken(key));
        }
        // Built already: the reload reuses it.
        self.current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .built
            .push((json.to_owned(), board));
        Ok((key, self.reload(store).await))
    }
}
