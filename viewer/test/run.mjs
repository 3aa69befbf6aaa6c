// The viewer's test in headless Chromium, against the real `skidpad view`
// server and (for the live check) the real spectator service:
//
// 1. poses: the golden mixed-field replay, seeked to steps across it,
//    shows every car exactly at the pose the native `skidpad export`
//    gives (and the meshes there to float32 precision);
// 2. screenshots of four cameras compared with committed references;
// 3. frame time while scrubbing a 20-car race, reported (never failed on);
// 4. eight ghosts raced against the car their lap came from; two laps
//    of one car overlaid on a distance axis;
// 5. deep links, wall-clock playback, lap markers;
// 6. desync markers; a replay of the previous simulation version played
//    by its archived core; a corrupt replay and a text file shown as
//    errors; a game's replay without a track name drawn from its ground;
//    a clip downloaded from the timeline verified on its own;
// 7. cars the recording removed hidden from their step, the rest exact;
//    resets listed where the native export has them, laps voided alike,
//    poses exact either side of each cut;
// 8. a live race followed from the spectator service;
// 9. the play page (play_checks.mjs): a keyboard lap driven with real key
//    events, submitted to the real leaderboard and verified at the page's
//    time; the best lap raced as a ghost; a scripted gamepad; and its
//    devices (device_checks.mjs): a wheel calibrated through the page,
//    its motor over a scripted WebHID device with the runaway latch, the
//    same replay drawn at 20 fps;
// 10. the online race page (race_checks.mjs): two pages and a Rust bot
//    race a lap on a real skidpad-netplay server through the link
//    emulator, predicted exactly; a chat line; the recording verifies.
//
// Environment: SKIDPAD_BIN (the skidpad binary), SKIDPAD_SPECTATOR_BIN,
// SKIDPAD_LEADERBOARD_BIN, SKIDPAD_NETPLAY_BIN,
// SKIDPAD_UPDATE_SCREENSHOTS=1 to rewrite the references. Run by
// `cargo xtask test` (alone: `cargo xtask test --only viewer`).

import { launch } from './browser.mjs';
import { demo20 } from './harness.mjs';
import { checkArrivals, checkPoses, checkRemovals, checkResets, checkScreenshots, checkScrubbing } from './playback_checks.mjs';
import { checkPlay, leaderboard } from './play_checks.mjs';
import { checkDevices, checkFixedRate } from './device_checks.mjs';
import { checkRace } from './race_checks.mjs';
import { checkArchivedCore, checkDesyncs, checkErrors, checkGhosts, checkLinksAndClock, checkLive, checkLiveArrival, checkStreamFile } from './feature_checks.mjs';
import { checkCarriedGround, checkClip, checkGroundRoad, checkLapOverlay } from './analysis_checks.mjs';

const browser = await launch();
try {
  await checkPoses(browser);
  await checkScreenshots(browser);
  const race = demo20();
  await checkScrubbing(browser, race);
  await checkGhosts(browser, race);
  await checkLapOverlay(browser, race);
  await checkStreamFile(browser, race);
  await checkLinksAndClock(browser);
  await checkDesyncs(browser);
  await checkRemovals(browser);
  await checkArrivals(browser);
  await checkResets(browser);
  await checkArchivedCore(browser);
  await checkErrors(browser);
  await checkGroundRoad(browser);
  await checkCarriedGround(browser);
  await checkClip(browser);
  await checkLive(browser);
  await checkLiveArrival(browser);
  const board = await leaderboard();
  try {
    await checkPlay(browser, board.url);
    await checkDevices(browser, board.url);
    await checkFixedRate(browser, board.url);
  } finally {
    board.child.kill('SIGTERM');
  }
  await checkRace(browser);
} finally {
  await browser.close();
}
