//! The `keyframes` section (deflated snapshots, world hashes and game
//! state at every keyframe) and the `removals` section (the step each
//! removed car left), which with the arrivals decides how many cars each
//! keyframe holds.

use skidpad_core::{SNAPSHOT_LEN, combine_world_hash};

use super::Presence;
use super::bytes::{Reader, Writer};
use super::compress::{CanonicalLevel, deflated_section, inflate};
use crate::Result;
use crate::limits::Limits;
use crate::replay::{CarKeyframe, CarTrack, Keyframe, ReplayHeader};

pub(super) fn encode_keyframes(keyframes: &[Keyframe]) -> Writer {
    let mut raw = Writer::default();
    raw.len32(keyframes.len(), "keyframes");
    // Car and world hashes are not stored: they are blake3 of the snapshot
    // bytes and of the step plus those hashes, recomputed on decoding.
    for k in keyframes {
        raw.u64(k.step);
        raw.blob(&k.game_state, "keyframe state");
        for car in &k.cars {
            raw.bytes(&car.snapshot);
        }
    }
    deflated_section(raw)
}

/// The keyframes section's declared inflated length. Its layout is fixed
/// but for the game-state blobs, so the game-state total is known here and
/// checked against the limit before anything is inflated.
pub(super) fn keyframes_raw_len(
    r: &mut Reader<'_>,
    header: &ReplayHeader,
    presence: &Presence,
    limits: &Limits,
) -> Result<usize> {
    let raw_len = r.u64()?;
    let fixed = header
        .keyframe_count()
        .saturating_mul(8 + 4)
        .saturating_add(keyframe_snapshots(header, presence).saturating_mul(SNAPSHOT_LEN as u64))
        .saturating_add(4);
    let state = raw_len.checked_sub(fixed).ok_or_else(|| {
        r.error(format!(
            "declares {raw_len} inflated bytes, the keyframes alone need {fixed}"
        ))
    })?;
    limits.check_keyframe_state(state)?;
    usize::try_from(raw_len).map_err(|_| r.error("keyframes too large"))
}

/// How many car snapshots the keyframes hold in all: each car's at every
/// keyframe from its arrival and before its removal. Keyframe `i` is at
/// `min(i·k, s)`, so a car arriving at `a ≤ s` is missing from the first
/// `⌈a/k⌉` and a car removed at `r ≤ s` from the last `K − ⌈r/k⌉`.
pub(super) fn keyframe_snapshots(header: &ReplayHeader, presence: &Presence) -> u64 {
    let count = header.keyframe_count();
    let every = u64::from(header.keyframe_every.max(1));
    let before_removal = presence
        .removals
        .iter()
        .flatten()
        .map(|&r| count.saturating_sub(r.div_ceil(every)));
    let before_arrival = presence
        .arrivals
        .iter()
        .flatten()
        .map(|a| a.step.div_ceil(every));
    let missing = before_removal
        .chain(before_arrival)
        .fold(0_u64, u64::saturating_add);
    count
        .saturating_mul(u64::from(header.car_count))
        .saturating_sub(missing)
}

pub(super) fn decode_keyframes(
    mut r: Reader<'_>,
    raw_len: usize,
    level: CanonicalLevel,
    header: &ReplayHeader,
    presence: &Presence,
) -> Result<Vec<Keyframe>> {
    let at = r.offset();
    let compressed = r.take(r.remaining())?;
    let raw = inflate(compressed, raw_len, level, "keyframes", at)?;
    let mut k = Reader::new(&raw, at, "keyframes (inflated)");
    let n = k.count(8 + 4, "keyframes")?;
    let expected = header.keyframe_count();
    if n as u64 != expected {
        return Err(k.error(format!("{n} keyframes, the header implies {expected}")));
    }
    let every = u64::from(header.keyframe_every);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let step = k.u64()?;
        let want = (i as u64 * every).min(header.step_count);
        if step != want {
            return Err(k.error(format!("keyframe {i} is at step {step}, expected {want}")));
        }
        let game_state = k.blob()?.to_vec();
        let cars = (0..header.car_count as usize)
            .filter(|&car| presence.present_at(car, step))
            .count();
        let mut car_frames = Vec::with_capacity(cars);
        for _ in 0..cars {
            let snapshot = k.take(SNAPSHOT_LEN)?.to_vec();
            let hash = *blake3::hash(&snapshot).as_bytes();
            car_frames.push(CarKeyframe { snapshot, hash });
        }
        let world_hash = combine_world_hash(
            header.start_step.saturating_add(step),
            car_frames.iter().map(|c| c.hash),
        );
        out.push(Keyframe {
            step,
            world_hash,
            cars: car_frames,
            game_state,
        });
    }
    k.finish()?;
    Ok(out)
}

/// Section 9: the cars removed during the recording, by rising playback
/// index, each with the step it was removed at.
pub(super) fn encode_removals(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    let removed: Vec<(usize, u64)> = cars
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.removed_at.map(|r| (i, r)))
        .collect();
    w.len32(removed.len(), "removals");
    for (car, step) in removed {
        w.len32(car, "removed car");
        w.u64(step);
    }
    w
}

/// Per car, the step it was removed at: at least one removal, cars in
/// rising order, each within the replay's cars and steps.
pub(super) fn decode_removals(r: Reader<'_>, header: &ReplayHeader) -> Result<Vec<Option<u64>>> {
    per_car_records(r, header, 12, ("removals", "removed"), |r, car| {
        let step = r.u64()?;
        if step > header.step_count {
            return Err(r.error(format!(
                "car {car} removed at step {step}, after the last step {}",
                header.step_count
            )));
        }
        Ok(step)
    })
}

/// A section of per-car records (removals, arrivals): a u32 count of at
/// least 1, then records of `record_bytes` each, a u32 car index of the
/// replay, strictly rising, followed by what `read` reads. `names` are the
/// section's and the records' names in messages ("removals", "removed").
pub(super) fn per_car_records<T: Clone>(
    mut r: Reader<'_>,
    header: &ReplayHeader,
    record_bytes: usize,
    (section, record): (&str, &str),
    mut read: impl FnMut(&mut Reader<'_>, usize) -> Result<T>,
) -> Result<Vec<Option<T>>> {
    let n = r.count(record_bytes, section)?;
    if n == 0 {
        return Err(r.error(format!("a {section} section with no entry: not canonical")));
    }
    let mut out = vec![None; header.car_count as usize];
    let mut last = None;
    for _ in 0..n {
        let car = r.u32()? as usize;
        if last.is_some_and(|l| car <= l) {
            return Err(r.error(format!("{record} car {car} out of order")));
        }
        if car >= out.len() {
            return Err(r.error(format!("{record} car {car} of {}", header.car_count)));
        }
        out[car] = Some(read(&mut r, car)?);
        last = Some(car);
    }
    r.finish()?;
    Ok(out)
}
