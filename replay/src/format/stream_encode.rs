//! A finished replay as a stream (`encode_stream`): the bytes a
//! `StreamRecorder` writes for the same recording. Cars that joined late
//! are announced by arrival records where the recorder writes them: a car
//! that arrived inside a chunk, before that chunk; one that arrived right
//! at a cut, after the chunk that ended there (the recorder had sealed it
//! before the car came), so the next chunk holds it from its start.

use skidpad_core::combine_world_hash;

use super::stream::{chunk_record, end_record, header_record, preamble};
use super::stream_arrival::{StreamArrival, arrival_record};
use crate::replay::{CarArrival, CarReset, CarTrack, Keyframe, Replay, ReplayHeader};
use crate::runs::Runs;
use crate::{ReplayError, Result};

/// A replay as a stream: the header record (with the cars there from the
/// start), one chunk per keyframe interval (the last may be shorter), an
/// arrival record before the first chunk that holds each later car, and
/// the end record. What `read_stream` gives back for these bytes equals
/// `replay`, except that embedded ghosts are not carried (a stream has no
/// place for them). A carried ground goes in the header record. A replay
/// with rewinds is refused: a stream has no place for them either, and
/// without them it would pass for a run lived straight through.
pub fn encode_stream(replay: &Replay) -> Result<Vec<u8>> {
    if !replay.rewinds.is_empty() {
        return Err(ReplayError::InvalidArgument {
            what: "replay",
            reason: "a stream does not carry rewinds; keep the run as a .skr".into(),
        });
    }
    let first_cars = starting_cars(replay)?;
    let every = u64::from(replay.header.keyframe_every);
    let last = replay.header.step_count;
    let mut out = preamble();
    let header = ReplayHeader {
        car_count: first_cars as u32,
        source_cars: replay.header.source_cars[..first_cars].to_vec(),
        ..replay.header.clone()
    };
    let definitions = replay.definitions.get(..first_cars).unwrap_or_default();
    out.extend(header_record(&header, definitions, replay.ground.as_ref())?);
    let mut announced = first_cars;
    if replay.keyframes.len() == 1 {
        // No step recorded: one chunk carries keyframe 0.
        push_chunk(&mut out, replay, &mut announced, (0, 0), first_cars)?;
    }
    for pair in replay.keyframes.windows(2) {
        let (from, to) = (pair[0].step, pair[1].step);
        // A chunk sealed at a cut holds no car that came after it.
        let at_cut = to.is_multiple_of(every);
        let cars = replay
            .cars
            .iter()
            .take_while(|c| c.arrived_at() < to || (c.arrived_at() == to && !at_cut))
            .count();
        push_chunk(&mut out, replay, &mut announced, (from, to), cars)?;
    }
    if replay.cars.len() > announced {
        // Cars that came after the last cut, with no step after them: the
        // recorder's `finish` writes a chunk of no step that holds them.
        let cars = replay.cars.len();
        push_chunk(&mut out, replay, &mut announced, (last, last), cars)?;
    }
    out.extend(end_record());
    Ok(out)
}

/// The chunk of steps `from..to` holding the first `cars` cars, after the
/// arrival records of those not `announced` yet.
fn push_chunk(
    out: &mut Vec<u8>,
    replay: &Replay,
    announced: &mut usize,
    (from, to): (u64, u64),
    cars: usize,
) -> Result<()> {
    for car in *announced..cars {
        out.extend(arrival_record(&announcement(replay, car)?)?);
    }
    *announced = (*announced).max(cars);
    out.extend(chunk_record(&part_between(replay, from, to, cars)?)?);
    Ok(())
}

/// The cars there from the start, which the header record names; the
/// others must follow them in the order they arrived, as a recorder adds
/// them.
fn starting_cars(replay: &Replay) -> Result<usize> {
    let first = replay
        .cars
        .iter()
        .take_while(|c| c.arrival.is_none())
        .count();
    let in_order = replay.cars[first..]
        .windows(2)
        .all(|w| w[0].arrived_at() <= w[1].arrived_at());
    if replay.cars[first..].iter().any(|c| c.arrival.is_none()) || !in_order {
        return Err(ReplayError::InvalidArgument {
            what: "replay",
            reason: "its late cars do not follow the others in the order they arrived, as a recorder adds them".into(),
        });
    }
    Ok(first)
}

/// The arrival record of car `car` (which arrived late).
fn announcement(replay: &Replay, car: usize) -> Result<StreamArrival> {
    let arrival = replay.cars[car]
        .arrival
        .as_ref()
        .ok_or(ReplayError::InvalidArgument {
            what: "replay",
            reason: format!("car {car} did not arrive late"),
        })?;
    Ok(StreamArrival {
        car: car as u32,
        world_step: replay.header.start_step + arrival.step,
        source: replay.header.source_cars[car],
        snapshot: arrival.snapshot.clone(),
        definition: replay.definitions.get(car).cloned(),
    })
}

/// Steps `from..to` of `replay` as a chunk of its first `cars` cars, with
/// the keyframes at both ends.
fn part_between(replay: &Replay, from: u64, to: u64, cars: usize) -> Result<Replay> {
    let keyframe = |step: u64| {
        replay
            .keyframe_at(step)
            .cloned()
            .ok_or(ReplayError::NoKeyframe { step })
    };
    let mut keyframes = vec![Keyframe {
        step: 0,
        ..keyframe(from)?
    }];
    if to > from {
        let mut end = keyframe(to)?;
        // Keyframes list the cars present in car order: the cars this
        // chunk leaves out (arrived right at its closing cut) come last.
        let held = replay.cars[..cars]
            .iter()
            .filter(|c| c.present_at(to))
            .count();
        if held < end.cars.len() {
            end.cars.truncate(held);
            end.world_hash = combine_world_hash(
                replay.header.start_step + to,
                end.cars.iter().map(|c| c.hash),
            );
        }
        keyframes.push(Keyframe {
            step: to - from,
            ..end
        });
    }
    let mut dt = Runs::new();
    for s in from..to {
        dt.push(replay.dt.at(s).ok_or(ReplayError::StreamTooShort {
            stream: "dt",
            step: s,
        })?);
    }
    let tracks = replay.cars[..cars]
        .iter()
        .map(|c| track_between(c, from, to))
        .collect::<Result<Vec<_>>>()?;
    Ok(Replay {
        header: ReplayHeader {
            step_count: to - from,
            start_step: replay.header.start_step + from,
            car_count: cars as u32,
            source_cars: replay.header.source_cars[..cars].to_vec(),
            metadata: Vec::new(),
            ..replay.header.clone()
        },
        definitions: Vec::new(),
        dt,
        cars: tracks,
        keyframes,
        ghosts: None,
        ground: None,
        rewinds: Vec::new(),
    })
}

/// A car's steps `from..to` (those it took part in) as a chunk's track.
fn track_between(c: &CarTrack, from: u64, to: u64) -> Result<CarTrack> {
    // Its streams start at its arrival (0 for a car there from the start).
    let arrived = c.arrived_at();
    let begin = from.max(arrived);
    // A car removed by `to` is removed in this chunk (at its step 0 when
    // gone before it), so the chunk's end keyframe leaves it out as the
    // replay's does.
    let removed_at = c
        .removed_at
        .filter(|&r| r <= to)
        .map(|r| r.saturating_sub(from));
    let end = removed_at.map_or(to, |r| from + r).max(begin);
    let own = |s: u64| (s - arrived) as usize;
    let mut track = CarTrack {
        inputs: if end == begin {
            Vec::new() // (a car gone before the chunk has fewer inputs than `from`)
        } else {
            c.inputs
                .get(own(begin)..own(end))
                .ok_or(ReplayError::StreamTooShort {
                    stream: "inputs",
                    step: end - 1,
                })?
                .to_vec()
        },
        removed_at,
        arrival: c
            .arrival
            .as_ref()
            .filter(|a| a.step > from)
            .map(|a| CarArrival {
                step: a.step - from,
                snapshot: a.snapshot.clone(),
            }),
        resets: c
            .resets
            .iter()
            .filter(|r| (begin..end).contains(&r.step))
            .map(|r| CarReset {
                step: r.step - from,
                ..*r
            })
            .collect(),
        ..CarTrack::new()
    };
    for s in begin..end {
        track
            .lod
            .push(c.lod.at(s - arrived).ok_or(ReplayError::StreamTooShort {
                stream: "lod",
                step: s,
            })?);
        for (runs, all) in track.surfaces.iter_mut().zip(&c.surfaces) {
            runs.push(all.at(s - arrived).ok_or(ReplayError::StreamTooShort {
                stream: "surfaces",
                step: s,
            })?);
        }
    }
    Ok(track)
}
