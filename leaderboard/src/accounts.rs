//! Players, their tokens and the operators' actions on them: who may
//! submit under which name, and who may delete runs and ban players.
//!
//! A token is a secret of 256 random bits shown once to whoever it is
//! issued to; the database keeps only its blake3 hash. A fast hash is
//! enough here (unlike for passwords): the secret is random, so there is
//! nothing to guess from the hash.

use serde::Serialize;
use sqlx::Row;

use crate::judge::{ANONYMOUS, MAX_PLAYER_CHARS};
use crate::store::{Store, now_ms};

/// What every token starts with, so a leaked one is recognisable (secret
/// scanners, logs).
pub const TOKEN_PREFIX: &str = "skp_";

/// Who a request comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The player the token was issued to.
    pub player: String,
    /// May delete runs and ban players.
    pub admin: bool,
}

/// What a presented token turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenCheck {
    /// A live token of a player in good standing.
    Valid(Caller),
    /// Never issued, or revoked.
    Unknown,
    /// The token's player is banned.
    Banned {
        /// The player.
        player: String,
        /// What the operator said.
        reason: String,
    },
}

/// A player as `token list` shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerRecord {
    /// The name.
    pub name: String,
    /// Live tokens.
    pub tokens: i64,
    /// Live admin tokens.
    pub admin_tokens: i64,
    /// Why they are banned, if they are.
    pub banned: Option<String>,
}

/// Checks a player name: 1 to [`MAX_PLAYER_CHARS`] letters, digits, `_`,
/// `-`, `.` or inner spaces, and not the name of runs without one.
pub fn check_player_name(name: &str) -> Result<(), String> {
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_PLAYER_CHARS {
        return Err(format!(
            "a player name has 1 to {MAX_PLAYER_CHARS} characters"
        ));
    }
    if name.trim() != name {
        return Err("a player name does not start or end with a space".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ')))
    {
        return Err(format!(
            "{c:?} is not allowed in a player name (letters, digits, '_', '-', '.', spaces)"
        ));
    }
    if name.eq_ignore_ascii_case(ANONYMOUS) {
        return Err(format!("{ANONYMOUS:?} is reserved"));
    }
    Ok(())
}

/// A fresh secret: the prefix and 64 hex digits from the OS's generator.
fn new_secret() -> Result<String, sqlx::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| sqlx::Error::Protocol(format!("no randomness for a token: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{TOKEN_PREFIX}{hex}"))
}

/// What the database stores of a secret.
fn token_hash(secret: &str) -> String {
    blake3::hash(secret.as_bytes()).to_hex().to_string()
}

impl Store {
    /// Claims `name` for a new player and issues their first token;
    /// `None` when the name (or the same name in other ASCII case) is
    /// taken.
    pub async fn sign_up(&self, name: &str) -> Result<Option<String>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let created = sqlx::query(
            "INSERT INTO players (name, created_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if created != 1 {
            tx.rollback().await?;
            return Ok(None);
        }
        let secret = insert_token(&mut tx, name, false).await?;
        tx.commit().await?;
        Ok(Some(secret))
    }

    /// The operator's command: a new token for `player` (created if
    /// new), an admin token if `admin`.
    pub async fn issue_token(&self, player: &str, admin: bool) -> Result<String, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO players (name, created_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(player)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        let exists = sqlx::query("SELECT 1 AS one FROM players WHERE name = $1")
            .bind(player)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            // The insert hit the case-folded index: another spelling owns
            // the name.
            tx.rollback().await?;
            return Err(sqlx::Error::Protocol(format!(
                "{player:?} differs only in case from an existing player"
            )));
        }
        let secret = insert_token(&mut tx, player, admin).await?;
        tx.commit().await?;
        Ok(secret)
    }

    /// Revokes every live token of `player`; returns how many.
    pub async fn revoke_tokens(&self, player: &str) -> Result<u64, sqlx::Error> {
        Ok(sqlx::query(
            "UPDATE tokens SET revoked_ms = $2 WHERE player = $1 AND revoked_ms IS NULL",
        )
        .bind(player)
        .bind(now_ms())
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    /// Who holds `secret`.
    pub async fn authenticate(&self, secret: &str) -> Result<TokenCheck, sqlx::Error> {
        let row = sqlx::query(
            "SELECT t.player, t.admin, p.banned_ms, p.ban_reason FROM tokens t
             JOIN players p ON p.name = t.player
             WHERE t.hash = $1 AND t.revoked_ms IS NULL",
        )
        .bind(token_hash(secret))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(TokenCheck::Unknown);
        };
        let player: String = row.try_get("player")?;
        if row.try_get::<Option<i64>, _>("banned_ms")?.is_some() {
            let reason: Option<String> = row.try_get("ban_reason")?;
            return Ok(TokenCheck::Banned {
                player,
                reason: reason.unwrap_or_default(),
            });
        }
        Ok(TokenCheck::Valid(Caller {
            player,
            admin: row.try_get::<i64, _>("admin")? == 1,
        }))
    }

    /// Bans `player` (their tokens stop working, their runs leave the
    /// rankings); false if there is no such player.
    pub async fn ban(&self, player: &str, reason: &str) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query("UPDATE players SET banned_ms = $2, ban_reason = $3 WHERE name = $1")
                .bind(player)
                .bind(now_ms())
                .bind(reason)
                .execute(&self.pool)
                .await?
                .rows_affected()
                == 1,
        )
    }

    /// Lifts a ban; false if there is no such player.
    pub async fn unban(&self, player: &str) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query("UPDATE players SET banned_ms = NULL, ban_reason = NULL WHERE name = $1")
                .bind(player)
                .execute(&self.pool)
                .await?
                .rows_affected()
                == 1,
        )
    }

    /// Every player with their live tokens, by name.
    pub async fn players(&self) -> Result<Vec<PlayerRecord>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT p.name, p.banned_ms, p.ban_reason,
               (SELECT COUNT(*) FROM tokens t WHERE t.player = p.name AND t.revoked_ms IS NULL) AS tokens,
               (SELECT COUNT(*) FROM tokens t WHERE t.player = p.name AND t.revoked_ms IS NULL AND t.admin = 1) AS admin_tokens
             FROM players p ORDER BY p.name",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let banned: Option<i64> = row.try_get("banned_ms")?;
                let reason: Option<String> = row.try_get("ban_reason")?;
                Ok(PlayerRecord {
                    name: row.try_get("name")?,
                    tokens: row.try_get("tokens")?,
                    admin_tokens: row.try_get("admin_tokens")?,
                    banned: banned.map(|_| reason.unwrap_or_default()),
                })
            })
            .collect()
    }

    /// Deletes a run, its job, its ghost and its replay; false if there
    /// was none.
    pub async fn delete_run(&self, id: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        for table in [
            "DELETE FROM jobs WHERE run_id = $1",
            "DELETE FROM ghosts WHERE run_id = $1",
        ] {
            sqlx::query(table).bind(id).execute(&mut *tx).await?;
        }
        let runs = sqlx::query("DELETE FROM runs WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM replays WHERE hash = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(runs == 1)
    }
}

/// Stores a new token of `player` and returns its secret.
async fn insert_token(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    player: &str,
    admin: bool,
) -> Result<String, sqlx::Error> {
    let secret = new_secret()?;
    sqlx::query("INSERT INTO tokens (hash, player, admin, issued_ms) VALUES ($1, $2, $3, $4)")
        .bind(token_hash(&secret))
        .bind(player)
        .bind(i64::from(admin))
        .bind(now_ms())
        .execute(&mut **tx)
        .await?;
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_names() {
        assert!(check_player_name("alice").is_ok());
        assert!(check_player_name("Jean-Luc P.").is_ok());
        assert!(check_player_name("").is_err());
        assert!(check_player_name(" alice").is_err());
        assert!(check_player_name("Anonymous").is_err());
        assert!(check_player_name("a/b").is_err());
        assert!(check_player_name(&"x".repeat(MAX_PLAYER_CHARS + 1)).is_err());
    }

    #[test]
    fn secrets_are_prefixed_random_and_stored_hashed() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == TOKEN_PREFIX.len() + 64);
        assert_ne!(a, b);
        assert_ne!(token_hash(&a), a);
        assert_eq!(token_hash(&a), token_hash(&a));
    }
}
