// What the page shows of a car: the dimensions the scene draws it from,
// read off its definition (the JSON the core writes), and the name of
// its driver. Shared by the viewer's and the play page's workers and the
// pages (no three.js, no DOM).

/** The dimensions `Scene.setCars` builds a car's mesh from. */
export function describeCar(d) {
  return {
    name: d.name,
    wheelbase: d.chassis.wheelbase,
    cgToFront: d.chassis.cg_to_front_axle,
    cgHeight: d.chassis.cg_height,
    trackFront: d.chassis.track.front,
    trackRear: d.chassis.track.rear,
    wheelRadius: d.wheels.front.radius,
  };
}

/** Longest driver name shown, characters (the race server's own limit). */
const MAX_DRIVER = 32;

/**
 * `cars` with each car's `driver` from the replay's `drivers` metadata (a
 * JSON array of names by car index: the replay crate's
 * `ReplayHeader::DRIVERS_KEY`, which `skidpad-netplay` writes): '' where
 * it names nobody, and for every car when the metadata is missing or not
 * such an array (a file that lies about its drivers labels nothing rather
 * than breaking the page).
 */
export function withDrivers(cars, metadata) {
  let names = [];
  try {
    const parsed = JSON.parse(metadata?.drivers ?? '[]');
    if (Array.isArray(parsed)) names = parsed;
  } catch {
    names = [];
  }
  return cars.map((car, k) => ({
    ...car,
    driver: typeof names[k] === 'string' ? names[k].slice(0, MAX_DRIVER) : '',
  }));
}

/** How the page names car `k` in its lists: number, driver, preset. */
export function carTitle(car, k) {
  return car?.driver ? `${k}: ${car.driver} (${car.name})` : `${k}: ${car?.name ?? ''}`;
}
