//! A race server's seal on a replay it recorded.
//!
//! A replay's metadata is the submitter's to write: a leaderboard that
//! ranked the car a file's `drivers` key names under that driver would rank
//! anyone's car under anyone's name. A seal is the recording server's
//! Ed25519 signature over everything the replay holds except the seal: a
//! leaderboard that trusts the server's public key knows the names, the
//! ranked car and every input are as the server wrote them.
//!
//! The signature covers `SEAL_CONTEXT` followed by the blake3 hash of the
//! replay encoded without its seal key. The `.skr` encoding is canonical (a
//! file decodes only if re-encoding it gives its bytes), so the hash is the
//! same for the file the server wrote, its gzip, and its decoded form.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use crate::error::{ReplayError, Result};
use crate::format::encode_replay;
use crate::replay::{Replay, ReplayHeader};

/// The bytes every seal signs ahead of the replay's hash, so a signature
/// made for anything else never passes for a seal.
pub const SEAL_CONTEXT: &[u8] = b"skidpad replay seal v1\0";

/// The scheme named at the start of a seal's value.
const SCHEME: &str = "ed25519";

/// The secret half of a race server's key pair. Its `Debug` shows only the
/// public half.
pub struct SealingKey(SigningKey);

impl SealingKey {
    /// The key whose secret is `seed` (32 random bytes).
    #[must_use]
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self(SigningKey::from_bytes(&seed))
    }

    /// Reads a key file's text: the 32-byte secret as 64 hex digits
    /// (surrounding whitespace ignored).
    pub fn from_hex(text: &str) -> Result<Self> {
        let seed = decode_hex::<32>(text.trim())
            .map_err(|reason| seal_error(format!("the sealing key: {reason}")))?;
        Ok(Self::from_seed(seed))
    }

    /// The secret as a key file holds it.
    #[must_use]
    pub fn secret_hex(&self) -> String {
        skidpad_core::hex(self.0.as_bytes())
    }

    /// The public key a leaderboard trusts, as 64 hex digits.
    #[must_use]
    pub fn public_hex(&self) -> String {
        skidpad_core::hex(self.0.verifying_key().as_bytes())
    }
}

impl std::fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealingKey")
            .field("public", &self.public_hex())
            .finish_non_exhaustive()
    }
}

/// Seals `replay` with `key`: replaces any seal it holds with the key's
/// signature over the rest of it. Any later change to the replay (a name,
/// the ranked car, an input) breaks the seal.
pub fn seal_replay(replay: &mut Replay, key: &SealingKey) -> Result<()> {
    replay
        .header
        .metadata
        .retain(|(k, _)| k != ReplayHeader::SEAL_KEY);
    let signature = key.0.sign(&sealed_message(replay)?);
    replay.header.metadata.push((
        ReplayHeader::SEAL_KEY.to_owned(),
        format!(
            "{SCHEME}:{}:{}",
            key.public_hex(),
            skidpad_core::hex(&signature.to_bytes())
        ),
    ));
    Ok(())
}

/// The public key (64 hex digits) of the server whose seal `replay`
/// carries, once the seal is checked against the replay's contents;
/// `Ok(None)` for a replay without a seal. An error names what is wrong:
/// a malformed seal, two seals, or a seal that does not match (the replay
/// was changed after it was sealed, or the seal was made for another).
pub fn check_seal(replay: &Replay) -> Result<Option<String>> {
    let mut seals = replay
        .header
        .metadata
        .iter()
        .filter(|(k, _)| k == ReplayHeader::SEAL_KEY)
        .map(|(_, v)| v.as_str());
    let (value, second) = (seals.next(), seals.next());
    let Some(value) = value else {
        return Ok(None);
    };
    if second.is_some() {
        return Err(seal_error("the replay carries two seals".into()));
    }
    let mut parts = value.split(':');
    let (Some(scheme), Some(public), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(seal_error(format!(
            "{value:?} is not `{SCHEME}:<public key>:<signature>`"
        )));
    };
    if scheme != SCHEME {
        return Err(seal_error(format!(
            "scheme {scheme:?} is not one this build checks ({SCHEME:?})"
        )));
    }
    let public_bytes = decode_hex::<32>(public)
        .map_err(|reason| seal_error(format!("the public key: {reason}")))?;
    let server = VerifyingKey::from_bytes(&public_bytes)
        .map_err(|_| seal_error(format!("{public} is not an Ed25519 public key")))?;
    let signature = Signature::from_bytes(
        &decode_hex::<64>(signature)
            .map_err(|reason| seal_error(format!("the signature: {reason}")))?,
    );
    let mut unsealed = replay.clone();
    unsealed
        .header
        .metadata
        .retain(|(k, _)| k != ReplayHeader::SEAL_KEY);
    // Strict: a signature whose encoding was tampered with into another
    // valid one (malleability) is refused too.
    server
        .verify_strict(&sealed_message(&unsealed)?, &signature)
        .map_err(|_| {
            seal_error(format!(
                "the seal of server {public} does not match the replay: it was changed after it was sealed"
            ))
        })?;
    Ok(Some(public.to_ascii_lowercase()))
}

/// What a seal signs: the context, then the hash of the replay's encoding
/// (which must hold no seal).
fn sealed_message(replay: &Replay) -> Result<Vec<u8>> {
    let hash = blake3::hash(&encode_replay(replay)?);
    let mut message = SEAL_CONTEXT.to_vec();
    message.extend_from_slice(hash.as_bytes());
    Ok(message)
}

fn seal_error(reason: String) -> ReplayError {
    ReplayError::Seal { reason }
}

/// `N` bytes from exactly `2 N` hex digits.
fn decode_hex<const N: usize>(text: &str) -> std::result::Result<[u8; N], String> {
    if text.len() != 2 * N || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "expected {} hex digits, found {:?}",
            2 * N,
            text.chars().take(2 * N + 8).collect::<String>()
        ));
    }
    let mut bytes = [0_u8; N];
    for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        let digits = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
        *byte = u8::from_str_radix(digits, 16).map_err(|e| e.to_string())?;
    }
    Ok(bytes)
}
