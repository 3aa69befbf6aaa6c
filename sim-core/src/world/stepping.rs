//! Stepping every car of a world for one host step, on one thread or on
//! rayon's pool (feature `parallel`).
//!
//! **Invariant:** a car's step reads only its own state and definition,
//! the world's read-only settings and ground (`Environment`) and the
//! traffic snapshot taken before the step (the same for every car), and
//! writes only its own state and outputs. So the cars can be stepped in any order, or at once,
//! with the same bits; nothing here sums across cars. Car-to-car contact
//! (`contact.rs`) runs after this, serially, in a fixed order.

use crate::model::substep::Environment;
use crate::track::driver::AiDriver;
use crate::track::traffic::TrafficCar;
use crate::world::car::Car;

/// Fewest cars stepped on the pool; below it the pool's hand-off costs
/// more than it saves (a car-step is 4–20 µs).
#[cfg(all(feature = "parallel", not(target_arch = "wasm32")))]
const PARALLEL_MIN_CARS: usize = 4;

/// Steps every car by `dt` and returns the index of the first car, in id
/// order, whose state left its bounds (the caller rolls the step back).
/// Sequentially the cars after it are not stepped; in parallel they are,
/// and the caller's rollback undoes them too, so the outcome is the same.
pub(crate) fn step_cars(
    cars: &mut [Car],
    dt: f64,
    env: &Environment<'_>,
    traffic: &[TrafficCar],
) -> Option<usize> {
    // Car i's entry is traffic[i] (the snapshot is taken in the cars'
    // order); an empty snapshot means no driver races traffic.
    let view = |i: usize| traffic.get(i).map(|me| (me, traffic));
    #[cfg(all(feature = "parallel", not(target_arch = "wasm32")))]
    if cars.len() >= PARALLEL_MIN_CARS && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        cars.par_iter_mut()
            .enumerate()
            .for_each(|(i, car)| car.step(dt, env, view(i)));
        return cars.iter().position(|car| !car.state.is_sane());
    }
    for (i, car) in cars.iter_mut().enumerate() {
        car.step(dt, env, view(i));
        if !car.state.is_sane() {
            return Some(i);
        }
    }
    None
}

/// Fills `traffic` with every car as the other drivers see it, in the
/// cars' order, when some driver races traffic; leaves it empty
/// otherwise (`step_cars` then hands no driver a snapshot).
pub(crate) fn snapshot_traffic(cars: &[Car], traffic: &mut Vec<TrafficCar>) {
    traffic.clear();
    if cars
        .iter()
        .any(|c| c.driver.as_ref().is_some_and(AiDriver::races_traffic))
    {
        traffic.extend(cars.iter().map(Car::traffic_view));
    }
}
