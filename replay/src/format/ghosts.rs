//! The optional `ghosts` section: one embedded `.skg` ghost per car, each
//! decoded by the ghost crate (its errors nested, not flattened).

use skidpad_ghost::{Ghost, decode_ghost, encode_ghost};

use super::bytes::{Reader, Writer};
use crate::{ReplayError, Result};

/// The section's payload: the count, then each ghost's `.skg` bytes.
pub(super) fn encode_ghosts(ghosts: &[Ghost]) -> Writer {
    let mut w = Writer::default();
    w.len32(ghosts.len(), "ghosts");
    for (i, g) in ghosts.iter().enumerate() {
        match encode_ghost(g) {
            Ok(bytes) => w.blob(&bytes, "ghost"),
            Err(e) => w.fail(format!("ghost {i}: {e}")),
        }
    }
    w
}

/// The ghosts of a replay of `car_count` cars, one per car.
pub(super) fn decode_ghosts(mut g: Reader<'_>, car_count: u32) -> Result<Vec<Ghost>> {
    let n = g.count(4, "ghosts")?;
    if n != car_count as usize {
        return Err(g.error(format!("{n} ghosts for {car_count} cars")));
    }
    let mut out = Vec::with_capacity(n);
    for index in 0..n {
        let offset = g.offset();
        let blob = g.blob()?;
        out.push(
            decode_ghost(blob).map_err(|source| ReplayError::EmbeddedGhost {
                index,
                offset,
                source,
            })?,
        );
    }
    g.finish()?;
    Ok(out)
}
