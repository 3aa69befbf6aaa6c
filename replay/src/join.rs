//! Joining consecutive parts of one recording (the chunks of a stream, the
//! parts an instant-replay ring keeps) into one replay. Each part is a
//! standalone replay from one keyframe to the next; joined, they form the
//! replay a `ReplayRecorder` would have recorded over the same steps.
//! Cars that join the recording between parts or inside one are announced
//! first ([`Joiner::arrive`]): a part holds the cars announced before it.

use skidpad_core::{CarDefinition, combine_world_hash};

use crate::format::StreamArrival;
use crate::replay::{CarArrival, CarKeyframe, CarReset, CarTrack, Keyframe, Replay, ReplayHeader};

/// Joins parts one at a time, checking that each continues the last.
pub(crate) struct Joiner {
    header: ReplayHeader,
    definitions: Vec<CarDefinition>,
    first_start: Option<u64>,
    joined: Option<Replay>,
    /// Cars announced since the last part, which the next part must hold.
    pending: Vec<StreamArrival>,
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
            pending: Vec::new(),
        }
    }

    /// The recording's cars so far (those announced included).
    pub(crate) fn car_count(&self) -> u32 {
        self.header.car_count
    }

    /// Announces a car that joined the recording: the next part holds it,
    /// arriving at `arrival.world_step`. Its definition is needed exactly
    /// when the recording embeds definitions.
    pub(crate) fn arrive(&mut self, arrival: StreamArrival) -> Result<(), String> {
        if arrival.car != self.header.car_count {
            return Err(format!(
                "car {} arrives, but the recording has {} cars",
                arrival.car, self.header.car_count
            ));
        }
        let at = self.joined.as_ref().map_or(self.header.start_step, |w| {
            w.header.start_step + w.header.step_count
        });
        if arrival.world_step < at {
            return Err(format!(
                "car {} arrives at world step {}, before the recording's step {at}",
                arrival.car, arrival.world_step
            ));
        }
        if let Some(earlier) = self.pending.last()
            && arrival.world_step < earlier.world_step
        {
            return Err(format!(
                "car {} arrives at world step {}, before car {} (step {})",
                arrival.car, arrival.world_step, earlier.car, earlier.world_step
            ));
        }
        let embedded = !self.definitions.is_empty() || self.header.car_count == 0;
        match (&arrival.definition, embedded) {
            (Some(definition), true) => self.definitions.push(definition.clone()),
            (None, false) => {}
            _ => {
                return Err(format!(
                    "car {} arrives with{} a definition in a recording that embeds {}",
                    arrival.car,
                    if arrival.definition.is_some() {
                        ""
                    } else {
                        "out"
                    },
                    if embedded { "them" } else { "none" }
                ));
            }
        }
        self.header.car_count += 1;
        self.header.source_cars.push(arrival.source);
        self.pending.push(arrival);
        Ok(())
    }

    /// Appends `part`, or says why it does not continue the joined replay.
    pub(crate) fn push(&mut self, part: Replay) -> Result<(), String> {
        check_continues(&self.header, self.joined.as_ref(), self.first_start, &part)?;
        check_arrivals(self.joined.as_ref(), &self.pending, &part)?;
        let arrivals = std::mem::take(&mut self.pending);
        self.joined = Some(match self.joined.take() {
            None => first_part(&self.header, &self.definitions, part),
            Some(whole) => append(whole, part, &arrivals, &self.header, &self.definitions),
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
    if let (Some(whole), Some(last)) = (joined, last) {
        let first = &part.keyframes[0];
        // A car removed right at the boundary (after the joined replay's
        // last keyframe was written) is missing from the part's first; a
        // car that arrived there follows the carried ones (check_arrivals
        // checks its snapshot).
        let carried: Vec<&CarKeyframe> = carried_cars(joined, part, last).collect();
        let arrived = part.cars[whole.cars.len().min(part.cars.len())..]
            .iter()
            .filter(|c| c.present_at(0))
            .count();
        if first.cars.len() != carried.len() + arrived
            || !first.cars.iter().zip(carried).all(|(a, b)| a == b)
            || first.game_state != last.game_state
        {
            return Err("a part does not start from the keyframe the joined replay ends on".into());
        }
    }
    Ok(())
}

/// The cars announced since the last part must be the part's new cars,
/// each arriving at its announced step with its announced state; the
/// others arrive in no part after the first.
fn check_arrivals(
    joined: Option<&Replay>,
    pending: &[StreamArrival],
    part: &Replay,
) -> std::result::Result<(), String> {
    let old = joined.map_or(part.cars.len().saturating_sub(pending.len()), |w| {
        w.cars.len()
    });
    if let Some(car) = part.cars[..old.min(part.cars.len())]
        .iter()
        .position(|c| c.arrival.is_some())
    {
        return Err(format!(
            "car {car} arrives in a part, but no arrival announced it"
        ));
    }
    for (i, arrival) in (old..).zip(pending) {
        let track = part
            .cars
            .get(i)
            .ok_or_else(|| format!("the part does not hold car {i}, which arrived"))?;
        let step = arrival
            .world_step
            .checked_sub(part.header.start_step)
            .filter(|&s| s <= part.header.step_count)
            .ok_or_else(|| {
                format!(
                    "car {i} arrives at world step {}, outside the part",
                    arrival.world_step
                )
            })?;
        let same = if step == 0 {
            let index = part.cars[..i].iter().filter(|c| c.present_at(0)).count();
            track.arrival.is_none()
                && (!track.present_at(0)
                    || part.keyframes[0]
                        .cars
                        .get(index)
                        .is_some_and(|k| k.snapshot == arrival.snapshot))
        } else {
            track
                .arrival
                .as_ref()
                .is_some_and(|a| a.step == step && a.snapshot == arrival.snapshot)
        };
        if !same {
            return Err(format!(
                "car {i} does not arrive in the part as announced (world step {})",
                arrival.world_step
            ));
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

/// `whole` followed by `part`, whose first keyframe is `whole`'s last
/// (less the cars the part removed at its step 0, plus those that arrived
/// there), with `arrivals` the cars that joined from one to the other.
/// `header` and `definitions` are the recording's with them.
fn append(
    mut whole: Replay,
    part: Replay,
    arrivals: &[StreamArrival],
    header: &ReplayHeader,
    definitions: &[CarDefinition],
) -> Replay {
    let offset = whole.header.step_count;
    whole.header.step_count += part.header.step_count;
    whole.header.car_count = header.car_count;
    whole.header.source_cars.clone_from(&header.source_cars);
    if whole.definitions.len() != definitions.len() && !definitions.is_empty() {
        whole.definitions = definitions.to_vec();
    }
    for (n, dt) in part.dt.runs() {
        for _ in 0..n {
            whole.dt.push(dt);
        }
    }
    for arrival in arrivals {
        let step = arrival.world_step - whole.header.start_step;
        whole.cars.push(CarTrack {
            arrival: (step > 0).then(|| CarArrival {
                step,
                snapshot: arrival.snapshot.clone(),
            }),
            ..CarTrack::new()
        });
    }
    for (track, add) in whole.cars.iter_mut().zip(part.cars) {
        append_track(track, add, offset);
    }
    let mut keyframes = part.keyframes.into_iter();
    // The keyframe both share is the part's first: the state after this
    // step's removals and arrivals, as a recorder keeps it.
    if let (Some(last), Some(first)) = (whole.keyframes.last_mut(), keyframes.next()) {
        last.cars = first.cars;
        last.world_hash = combine_world_hash(
            whole.header.start_step + offset,
            last.cars.iter().map(|c| c.hash),
        );
    }
    whole.keyframes.extend(keyframes.map(|k| Keyframe {
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
