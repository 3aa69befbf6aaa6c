// What the page shows of a track and a car: the geometry the scene draws
// them from, read off a TrackView and a car's definition (the JSON the
// core writes), and the name of its driver. Shared by the viewer's and the play page's workers and the
// pages (no three.js, no DOM).

/** What `Scene.setTrack` draws of a track (a TrackView), named `name`:
 * its centre line, heights, banking, each side's edge and the kerbs'
 * width. */
export function trackGeometry(view, name = view.name) {
  return {
    name,
    width: view.width,
    length: view.length,
    points: view.points(),
    elevation: view.elevation(),
    banking: view.banking(),
    edges: view.edges(),
    kerbWidth: view.kerbWidth,
  };
}

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
