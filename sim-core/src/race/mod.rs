//! The race layer: where a lap starts and ends, when it counts, where cars
//! line up, and who leads. Every crate that times a lap (the ghost cutter,
//! the replay highlights, the leaderboard, the CLI, the wasm package and
//! through it the viewer) uses this module, so one run has one set of lap
//! times wherever it is read.
//!
//! The rules, in one place:
//! - **The line** is the track's distance 0 ([`Track::locate`]).
//! - **A crossing** is a step whose track distance wraps across the line
//!   (a change of more than half a lap in one observation); its time is
//!   interpolated linearly within the step.
//! - **Lap 1** starts at the start (the first observation) for a car on
//!   the grid ([`GRID_ZONE`] behind the line, or on it): a standing lap that
//!   includes the run up to the line. A car that starts anywhere else is
//!   on an out-lap, and its first forward crossing starts lap 1 (flying).
//!   Every later lap runs from one forward crossing to the next.
//! - **Backwards over the line** (a spin, a push, reversing): the lap in
//!   progress keeps running; the car must cross forward again, which ends
//!   nothing, before a crossing can end a lap.
//! - **Validity**: a lap counts when the car passed each of the
//!   [`RaceRules::checkpoints`] in order (none skipped, no jump of more than
//!   one checkpoint spacing in one observation) and its centre of mass
//!   stayed within the track's half width plus
//!   [`RaceRules::track_limit_margin`].
//!
//! [`LapTimer`] times one car; [`RaceTiming`] times a field and gives the
//! [`Standing`]s; [`grid_pose`] places the starting grid, [`pose_along`]
//! a car anywhere on the track, [`AiField`] lines up a field of AI cars on
//! it, and [`Retirement`] says why a car that did not finish is out
//! (rolled over, or stuck by a [`StandingClock`]).
//!
//! ```
//! use std::sync::Arc;
//! use skidpad_core::race::{grid_pose, GridLayout, RaceRules, RaceTiming};
//! use skidpad_core::{preset, Track, World, WorldConfig};
//!
//! let track = Arc::new(Track::builtin("brandwood").unwrap());
//! let mut world = World::new(WorldConfig::default()).unwrap();
//! for slot in 0..2 {
//!     let car = world
//!         .add_car(&preset("kart").unwrap(), grid_pose(&track, slot, &GridLayout::default()))
//!         .unwrap();
//!     world.set_driver(car, Some(track.clone())).unwrap();
//! }
//! let mut race = RaceTiming::new(track, RaceRules::default(), &world);
//! for _ in 0..600 {
//!     world.step(1.0 / 60.0).unwrap();
//!     race.after_step(&world).unwrap();
//! }
//! let standings = race.standings();
//! assert_eq!(standings[0].position, 1);
//! assert!(standings[0].progress > standings[1].progress);
//! ```

mod field;
mod grid;
mod lap;
mod lap_timer;
mod retirement;
mod sectors;
mod standings;

pub use field::{AiField, FIELD_PRESETS};
pub use grid::{GridLayout, grid_pose, pose_along};
pub use lap::{Lap, LapFault, LapStart};
pub use lap_timer::{GRID_ZONE, LapTimer, ON_LINE, RaceRules};
pub use retirement::{Retirement, STANDING_SPEED, STUCK_AFTER_S, StandingClock, rolled_over};
pub use standings::{CarStatus, RaceEvent, RaceTiming, Standing};

#[cfg(doc)]
use crate::Track;
