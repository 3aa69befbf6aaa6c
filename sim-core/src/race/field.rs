//! An AI field on the grid: the cars a demo, a statistics table or a golden
//! race line up, each with its driver. One place decides which preset sits
//! in which slot and which skills its driver draws, so the CLI's demo, the
//! traffic table in VALIDATION.md and the traffic golden race the same
//! field when they ask for the same one.

use std::sync::Arc;

use super::grid::{GridLayout, grid_pose};
use crate::{CarId, DriverStyle, Racecraft, Result, Track, World, preset};

/// The presets of the demo's field, alternating from pole.
pub const FIELD_PRESETS: [&str; 2] = ["fwd_hatchback", "rwd_sports"];

/// A field of AI cars to put on a track's grid.
#[derive(Clone, Debug, PartialEq)]
pub struct AiField {
    /// How many cars.
    pub cars: usize,
    /// The presets, cycled over the slots from pole.
    pub presets: Vec<String>,
    /// Where the slots are; `None`: the track's own grid.
    pub layout: Option<GridLayout>,
    /// Every driver's style; its `racecraft` is replaced per driver when
    /// `racecraft_seed` is set.
    pub style: DriverStyle,
    /// Each driver's own racecraft, `Racecraft::varied(seed, slot)`, so the
    /// field spreads out and the same seed races the same.
    pub racecraft_seed: Option<u64>,
}

impl AiField {
    /// `cars` cars of [`FIELD_PRESETS`] on the default grid, driven by the
    /// default style (racing line alone, no racecraft).
    #[must_use]
    pub fn new(cars: usize) -> AiField {
        AiField {
            cars,
            presets: FIELD_PRESETS.iter().map(|&p| p.to_owned()).collect(),
            layout: None,
            style: DriverStyle::default(),
            racecraft_seed: None,
        }
    }

    /// The style on a track's own surface: a car pushed into a barrier
    /// backs out, and one stuck for `resets_after` seconds (wedged, rolled)
    /// is put back on the track, if given.
    #[must_use]
    pub fn on_track_surface(mut self, resets_after: Option<f64>) -> AiField {
        self.style.backs_out = true;
        self.style.resets_after = resets_after;
        self
    }

    /// Drivers who race each other, with skills drawn from `seed`.
    #[must_use]
    pub fn racecraft(mut self, seed: Option<u64>) -> AiField {
        self.racecraft_seed = seed;
        self
    }

    /// The grid the field lines up on, on `track`.
    #[must_use]
    pub fn layout_on(&self, track: &Track) -> GridLayout {
        self.layout.unwrap_or_else(|| track.grid())
    }

    /// The preset in `slot`.
    #[must_use]
    pub fn preset_of(&self, slot: usize) -> &str {
        if self.presets.is_empty() {
            return FIELD_PRESETS[slot % FIELD_PRESETS.len()];
        }
        &self.presets[slot % self.presets.len()]
    }

    /// Adds the field to `world`, pole first, each car with its driver on
    /// `track`, and returns the cars' ids in slot order.
    ///
    /// # Errors
    /// An unknown preset name, or the world's own refusals (too many cars,
    /// a grid slot off the world).
    pub fn line_up(&self, world: &mut World, track: &Arc<Track>) -> Result<Vec<CarId>> {
        let mut ids = Vec::with_capacity(self.cars);
        let layout = self.layout_on(track);
        for slot in 0..self.cars {
            let id = world.add_car(
                &preset(self.preset_of(slot))?,
                grid_pose(track, slot, &layout),
            )?;
            let style = DriverStyle {
                racecraft: match self.racecraft_seed {
                    Some(seed) => Some(Racecraft::varied(seed, slot as u64)),
                    None => self.style.racecraft,
                },
                ..self.style
            };
            world.set_driver_with_style(id, Some(track.clone()), style)?;
            ids.push(id);
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WorldConfig;

    #[test]
    fn the_field_alternates_presets_and_draws_each_drivers_skills_from_the_seed() {
        let track = Arc::new(Track::builtin("brandwood").unwrap());
        let mut world = World::new(WorldConfig::default()).unwrap();
        let field = AiField::new(4)
            .on_track_surface(Some(10.0))
            .racecraft(Some(7));
        let ids = field.line_up(&mut world, &track).unwrap();
        assert_eq!(ids.len(), 4);
        assert_eq!(field.preset_of(0), "fwd_hatchback");
        assert_eq!(field.preset_of(3), "rwd_sports");
        for (slot, id) in ids.iter().enumerate() {
            let style = world.driver(*id).unwrap().unwrap().style();
            assert!(style.backs_out);
            assert_eq!(style.resets_after, Some(10.0));
            assert_eq!(style.racecraft, Some(Racecraft::varied(7, slot as u64)));
            let pose = world.pose(*id).unwrap().position;
            let expected = grid_pose(&track, slot, &GridLayout::default());
            assert!((pose.x - expected.x).abs() < 1e-9 && (pose.y - expected.y).abs() < 1e-9);
        }
        // Two seeds give two fields.
        assert_ne!(Racecraft::varied(7, 1), Racecraft::varied(8, 1));
    }

    #[test]
    fn an_unknown_preset_is_refused_before_any_car_is_added() {
        let track = Arc::new(Track::builtin("brandwood").unwrap());
        let mut world = World::new(WorldConfig::default()).unwrap();
        let mut field = AiField::new(2);
        field.presets = vec!["no_such_car".to_owned()];
        assert!(field.line_up(&mut world, &track).is_err());
        assert_eq!(world.car_count(), 0);
    }
}
