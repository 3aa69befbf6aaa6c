//! Joining consecutive parts of one recording (the chunks of a stream, the
//! parts an instant-replay ring keeps) into one replay. Each part is a
//! standalone replay from one keyframe to the next; joined, they form the
//! replay a `ReplayRecorder` would have recorded over the same steps.

use skidpad_core::{CarDefinition, combine_world_hash};

use crate::replay::{CarReset, CarTrack, Keyframe, Replay, ReplayHeader};

/// Joins parts one at a time, checking that each continues the last.
pub(crate) struct Joiner {
    header: ReplayHeader,
    definitions: Vec<CarDefinition>,
    first_start: Option<u64>,
    joined: Option<Replay>,
}

impl Joiner {
    /// `header` and `definitions` are the recording's (its metadata and
    /// definitions go to the joined replay); `first_start`, when given, is
    /// the world step the first part must start at.
    pub(crate) fn new(
        header: ReplayHeader,
        definitions: Vec<CarDefinition>,
        first_start: Option<u64>,
    ) -> Self {
        Joiner {
            header,
            definitions,
            first_start,
            joined: None,
        }
    }

    /// Appends `part`, or says why it does not continue the joined replay.
    pub(crate) fn push(&mut self, part: Replay) -> Result<(), String> {
        check_continues(&self.header, self.joined.as_ref(), self.first_start, &part)?;
        self.joined = Some(match self.joined.take() {
            None => first_part(&self.header, &self.definitions, part),
            Some(whole) => append(whole, part),
        });
        Ok(())
    }

    /// The joined replay, if any part was pushed.
    pub(crate) fn finish(self) -> Option<Replay> {
        self.joined
    }
}

/// A part must carry the recording's cars and settings and start where the
/// joined replay ends (or, first, at `first_start` when given), with the
/// keyframe it ended on.
fn check_continues(
    header: &ReplayHeader,
    joined: Option<&Replay>,
    first_start: Option<u64>,
    part: &Replay,
) -> std::result::Result<(), String> {
    let h = &part.header;
    if h.car_count != header.car_count
        || h.source_cars != header.source_cars
        || h.surfaces != header.surfaces
        || h.gravity.to_bits() != header.gravity.to_bits()
        || h.air_density.to_bits() != header.air_density.to_bits()
    {
        return Err("a part's cars or world settings differ from the recording's".into());
    }
    if h.keyframe_every != header.keyframe_every {
        return Err(format!(
            "a part's keyframe interval {} differs from the recording's {}",
            h.keyframe_every, header.keyframe_every
        ));
    }
    if h.step_count > u64::from(header.keyframe_every) {
        return Err(format!(
            "a part of {} steps is longer than the recording's part length {}",
            h.step_count, header.keyframe_every
        ));
    }
    if !part.definitions.is_empty() || !h.metadata.is_empty() {
        return Err(
            "a part carries definitions or metadata (the recording's header holds them)".into(),
        );
    }
    if part.keyframes.len() != 2 && !(h.step_count == 0 && part.keyframes.len() == 1) {
        return Err(format!(
            "a part holds {} keyframes, not one at each end",
            part.keyframes.len()
        ));
    }
    let (expected_start, last) = match joined {
        None => (first_start.unwrap_or(h.start_step), None),
        Some(whole) => (
            whole.header.start_step + whole.header.step_count,
            whole.keyframes.last(),
        ),
    };
    if h.start_step != expected_start {
        return Err(format!(
            "a part starts at world step {}, the joined replay is at {expected_start}",
            h.start_step
        ));
    }
    if let Some(whole) = joined
        && !whole
            .header
            .step_count
            .is_multiple_of(u64::from(header.keyframe_every))
    {
        return Err("a part follows a shorter (final) part".into());
    }
    if let Some(whole) = joined
        && let Some(car) = whole
            .cars
            .iter()
            .zip(&part.cars)
            .position(|(w, p)| w.removed_at.is_some() && p.removed_at != Some(0))
    {
        return Err(format!(
            "a part holds car {car}, which an earlier part removed"
        ));
    }
    if let Some(last) = last {
        let first = &part.keyframes[0];
        // A car removed right at the boundary (after the joined replay's
        // last keyframe was written) is missing from the part's first.
        let carried = carried_cars(joined, part, last);
        if !first.cars.iter().eq(carried) || first.game_state != last.game_state {
            return Err("a part does not start from the keyframe the joined replay ends on".into());
        }
    }
    Ok(())
}

/// The cars of `last` (the joined replay's last keyframe) that `part`
/// still holds at its start.
fn carried_cars<'a>(
    joined: Option<&'a Replay>,
    part: &'a Replay,
    last: &'a Keyframe,
) -> impl Iterator<Item = &'a crate::replay::CarKeyframe> + 'a {
    let end = joined.map_or(0, |w| w.header.step_count);
    let present: Vec<usize> = joined
        .map(|w| w.present_at(end).collect())
        .unwrap_or_default();
    present
        .into_iter()
        .zip(&last.cars)
        .filter(|(i, _)| part.cars.get(*i).is_some_and(|c| c.present_at(0)))
        .map(|(_, car)| car)
}

fn first_part(header: &ReplayHeader, definitions: &[CarDefinition], part: Replay) -> Replay {
    Replay {
        header: ReplayHeader {
            step_count: part.header.step_count,
            keyframe_every: part.header.keyframe_every,
            start_step: part.header.start_step,
            ..header.clone()
        },
        definitions: definitions.to_vec(),
        ..part
    }
}

/// `whole` followed by `part`, whose first keyframe is `whole`'s last.
fn append(mut whole: Replay, part: Replay) -> Replay {
    let offset = whole.header.step_count;
    whole.header.step_count += part.header.step_count;
    for (n, dt) in part.dt.runs() {
        for _ in 0..n {
            whole.dt.push(dt);
        }
    }
    let before: Vec<usize> = whole.present_at(offset).collect();
    for (track, add) in whole.cars.iter_mut().zip(part.cars) {
        append_track(track, add, offset);
    }
    // Cars the part removed at its step 0 leave the keyframe both share.
    if let Some(last) = whole.keyframes.last_mut() {
        let cars = std::mem::take(&mut last.cars);
        last.cars = before
            .iter()
            .zip(cars)
            .filter(|(i, _)| whole.cars[**i].present_at(offset))
            .map(|(_, car)| car)
            .collect();
        last.world_hash = combine_world_hash(
            whole.header.start_step + offset,
            last.cars.iter().map(|c| c.hash),
        );
    }
    whole
        .keyframes
        .extend(part.keyframes.into_iter().skip(1).map(|k| Keyframe {
            step: k.step + offset,
            ..k
        }));
    whole
}

fn append_track(track: &mut CarTrack, add: CarTrack, offset: u64) {
    if track.removed_at.is_some() {
        return;
    }
    track.removed_at = add.removed_at.map(|r| offset + r);
    track.inputs.extend(add.inputs);
    track
        .resets
        .extend(add.resets.into_iter().map(|r| CarReset {
            step: offset + r.step,
            ..r
        }));
    for (n, lod) in add.lod.runs() {
        for _ in 0..n {
            track.lod.push(lod);
        }
    }
    for (runs, more) in track.surfaces.iter_mut().zip(&add.surfaces) {
        for (n, s) in more.runs() {
            for _ in 0..n {
                runs.push(s);
            }
        }
    }
}
