// A web game's use of the npm package, in plain strict TypeScript: it must
// type-check against the package's .d.ts at every target a game builds for
// (xtask's "JavaScript types" check compiles it at es2020, es2022 and
// esnext). Never run: what is checked is the declarations.
import init, {
  RaceTiming,
  ReplayRecorder,
  TrackView,
  World,
  encodeReplay,
  presetDefinition,
  telemetryCsv,
  verifyReplay,
  type VerifyReport,
} from "skidpad";

export async function race(): Promise<VerifyReport> {
  await init();
  const track = new TrackView("brandwood");
  const world = new World();
  const car: number = world.addCar(presetDefinition("rwd_sports"), { x: 40, y: 0, yaw: 0, speed: 10 });
  const recorder = new ReplayRecorder(world);
  for (let frame = 0; frame < 600; frame++) {
    world.setInput(car, { steer: 0, throttle: 1, brake: 0 });
    recorder.step(world, 1 / 60);
  }
  const replay = recorder.finish(world);
  // Optional trailing parameters may be left out.
  const timing = new RaceTiming(track, new Float64Array([0, 0]));
  const csv: string = telemetryCsv(replay, 0);
  const report = verifyReplay(encodeReplay(replay));
  timing.free();
  track.free();
  world.free();
  return csv.length > 0 ? report : { ...report, valid: false };
}
