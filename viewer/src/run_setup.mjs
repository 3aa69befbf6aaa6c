// What a fresh run on the play page is made of: a track (built in, by
// name, or a game's own, by its definition) and a car (a preset, or a
// game's own definition), as the leaderboard serving the page registered
// them (`GET /boards`): the page offers them, and the page's preview and
// the physics worker both build the run's world from the same choice.

/**
 * A run's choice: `{ key, track, trackDefinition, className, preset,
 * carDefinition }`: the board's key (a built-in track's name or an own
 * track's fingerprint), its track's name, the own track's definition
 * (JSON text, null for a built-in one), the class ranked in (the URL's
 * `/leaderboards/KEY/CLASS`), and the car: a preset's name or an own
 * car's definition (JSON text).
 * @typedef {{ key: string, track: string, trackDefinition: string | null,
 *   className: string, preset: string | null, carDefinition: string | null }} RunChoice
 */

/** The boards the page offers: the leaderboard's `GET /boards` at `base`,
 * or, when no leaderboard answers there, the package's built-in tracks
 * with each preset its own class (as a leaderboard without `--boards`). */
export async function boardsOffered(sk, base) {
  try {
    const response = await fetch(`${base}/boards`);
    if (response.ok) return await response.json();
  } catch {
    // No leaderboard behind the page: the package's own.
  }
  const classes = sk.presetNames().map((p) => ({ name: p, cars: [{ preset: p }] }));
  return sk.trackNames().map((t) => {
    const view = new sk.TrackView(t);
    const board = { key: t, track: view.name, classes };
    view.free();
    return board;
  });
}

/** Every car a board ranks, with the `<select>` value and text the page
 * shows for it: a preset ranked as its own class is its name. */
export function carsOf(board) {
  const out = [];
  for (const c of board.classes) {
    c.cars.forEach((car, k) => {
      const name = car.preset ?? car.definition.name;
      const own = car.preset === c.name;
      out.push({
        value: own ? c.name : `${c.name}/${k}`,
        text: own ? name : `${name} (${c.name})`,
        className: c.name,
        preset: car.preset ?? null,
        carDefinition: car.definition ? JSON.stringify(car.definition) : null,
      });
    });
  }
  return out;
}

/** The choice of `board` (a `GET /boards` entry) and the car whose
 * select value is `value`. @returns {RunChoice} */
export function choiceOf(board, value) {
  const car = carsOf(board).find((c) => c.value === value) ?? carsOf(board)[0];
  return {
    key: board.key,
    track: board.track,
    trackDefinition: board.track_definition ? JSON.stringify(board.track_definition) : null,
    className: car.className,
    preset: car.preset,
    carDefinition: car.carDefinition,
  };
}

/** The track view of a choice. */
export function trackOf(sk, choice) {
  return choice.trackDefinition ? sk.TrackView.fromDefinition(choice.trackDefinition) : new sk.TrackView(choice.key);
}

/** A world on `track`'s surface with the choice's car at `pose`; with
 * sequential or H-pattern `gears` the car's box is manual (an automatic
 * box takes only drive or reverse from the player; the leaderboard ranks
 * it in its class all the same). Returns `{ world, car }`. */
export function worldWith(sk, track, choice, pose, gears = 'automatic') {
  const world = new sk.World();
  if (choice.trackDefinition) world.setGroundOfTrack(track);
  else world.setTrackGround(choice.key);
  if (gears === 'automatic' && choice.preset) return { world, car: world.addPresetCar(choice.preset, pose) };
  const definition = JSON.parse(choice.carDefinition ?? sk.presetDefinition(choice.preset));
  if (gears !== 'automatic') definition.gearbox.mode = 'manual';
  return { world, car: world.addCar(JSON.stringify(definition), pose) };
}
