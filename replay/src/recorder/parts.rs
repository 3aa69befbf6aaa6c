//! A recording in parts, for the stream (a chunk every `keyframe_every`
//! steps, written as it fills) and the instant-replay ring (parts kept
//! and dropped by age): cutting a part hands over the steps since the
//! last cut as a standalone replay and keeps recording from there, in the
//! same memory.

use skidpad_core::World;

use super::ReplayRecorder;
use crate::input_chunks::split_per_car;
use crate::replay::{CarTrack, Keyframe, Replay, ReplayHeader};
use crate::runs::Runs;
use crate::{ReplayError, Result};

impl ReplayRecorder<'_> {
    /// Hands over the steps recorded since the previous cut (or the start)
    /// as a standalone replay and keeps recording from here: the replay
    /// starts at the previous cut's keyframe and ends with a keyframe taken
    /// now (unless the last step already took one). Its header's
    /// `start_step` is the world's step at the previous cut; it carries no
    /// definitions and no metadata (a stream's header holds them once).
    /// Memory held by the recorder drops back to one keyframe, plus the
    /// emptied input chunks, kept for the next part (their pages are
    /// mapped already, so writing them again costs no fault).
    pub(crate) fn cut(&mut self, world: &World) -> Result<Replay> {
        self.check_position(world, 0)?;
        self.check_no_pending_reset(world)?;
        self.note_removals(world);
        if self.ghosts.is_some() {
            return Err(ReplayError::InvalidArgument {
                what: "embed_ghosts",
                reason: "parts of a recording do not carry ghosts".into(),
            });
        }
        let last = self.replay.header.step_count;
        if self.replay.keyframes.last().map(|k| k.step) != Some(last) {
            self.take_keyframe(world)?;
        }
        let part = self.part_so_far();
        let end = part
            .keyframes
            .last()
            .cloned()
            .ok_or(ReplayError::NothingRecorded("no keyframe to cut at"))?;
        // The next part starts where this one ends, in the same memory:
        // pages already mapped cost no fault when written again.
        for mut chunk in self.inputs.drain(..) {
            chunk.clear();
            self.spare_inputs.push(chunk);
        }
        self.replay.dt = Runs::new();
        for track in &mut self.replay.cars {
            track.lod = Runs::new();
            track.surfaces = Default::default();
            track.resets.clear();
            // A car gone by now is gone from the next part's start; one
            // that arrived is there from it.
            track.removed_at = track.removed_at.map(|_| 0);
            track.arrival = None;
        }
        self.replay.header.start_step += last;
        self.replay.header.step_count = 0;
        self.replay.keyframes = vec![Keyframe { step: 0, ..end }];
        Ok(part)
    }

    /// Records a step the caller has just taken, as `after_step`, and cuts a
    /// part when a keyframe interval has filled: the stream and the ring
    /// record in parts of `keyframe_every` steps.
    pub(crate) fn capture_parts(&mut self, world: &World) -> Result<Option<Replay>> {
        self.after_step(world)?;
        if self.replay.header.step_count < u64::from(self.replay.header.keyframe_every) {
            return Ok(None);
        }
        self.cut(world).map(Some)
    }

    /// The steps since the previous cut as a standalone replay ending with
    /// a keyframe of the world now, without cutting: recording goes on as
    /// if nothing was asked (the keyframe is not kept).
    pub(crate) fn tail(&mut self, world: &World) -> Result<Replay> {
        self.check_position(world, 0)?;
        self.check_no_pending_reset(world)?;
        self.note_removals(world);
        let last = self.replay.header.step_count;
        if self.replay.keyframes.last().map(|k| k.step) == Some(last) {
            return Ok(self.part_so_far());
        }
        self.take_keyframe(world)?;
        let part = self.part_so_far();
        self.replay.keyframes.pop();
        Ok(part)
    }

    /// What was recorded since the previous cut, as a replay (copied).
    fn part_so_far(&self) -> Replay {
        let tracks = self
            .replay
            .cars
            .iter()
            .zip(split_per_car(
                &self.inputs,
                &self.replay.cars,
                self.replay.header.step_count,
            ))
            .map(|(track, inputs)| CarTrack {
                inputs,
                ..track.clone()
            })
            .collect();
        Replay {
            header: ReplayHeader {
                metadata: Vec::new(),
                ..self.replay.header.clone()
            },
            definitions: Vec::new(),
            dt: self.replay.dt.clone(),
            cars: tracks,
            keyframes: self.replay.keyframes.clone(),
            ghosts: None,
            // A part is a stream chunk or a ring's piece: the ground would
            // be repeated in each; the whole (`finish`, a ring's extract)
            // carries it once.
            ground: None,
            // A part has no rewinds: stream and ring recorders offer none.
            rewinds: Vec::new(),
        }
    }
}
