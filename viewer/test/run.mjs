// The viewer's test in headless Chromium, against the real `skidpad view`
// server and (for the live check) the real spectator service:
//
// 1. poses: the golden mixed-field replay, seeked to steps across it,
//    shows every car exactly at the pose the native `skidpad export`
//    gives (and the meshes there to float32 precision);
// 2. screenshots of four cameras compared with committed references;
//    the road drawn in every one of a thousand frames of a lap on each
//    built-in track and an imported circuit, from every camera
//    (road_checks.mjs);
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
//    same replay drawn at 20 fps; a lap lost off the road said on the HUD
//    at once, the reset key, reverse and back to drive with quick taps
//    (play_rules_checks.mjs); whole pages at 1280×800 and 800×480 against
//    references, the 3D view at least half the window (page_checks.mjs);
//    a game's own circuit and car class the leaderboard registered,
//    offered, driven and verified there (board_checks.mjs);
// 10. the online race page (race_checks.mjs): two pages and a Rust bot
//    race a lap on a real skidpad-netplay server through the link
//    emulator, predicted exactly; a chat line; the recording verifies;
//    a page whose link is cut comes back to its car (reconnect_checks.mjs).
//
// Environment: SKIDPAD_BIN (the skidpad binary), SKIDPAD_SPECTATOR_BIN,
// SKIDPAD_LEADERBOARD_BIN, SKIDPAD_NETPLAY_BIN,
// SKIDPAD_UPDATE_SCREENSHOTS=1 to rewrite the references. Run by
// `cargo xtask test` (alone: `cargo xtask test --only viewer`).

import { launch } from './browser.mjs';
import { demo20 } from './harness.mjs';
import { checkArrivals, checkPoses, checkRemovals, checkResets, checkScreenshots, checkScrubbing } from './playback_checks.mjs';
import { checkPlay, leaderboard } from './play_checks.mjs';
import { checkLapRules } from './play_rules_checks.mjs';
import { checkPages } from './page_checks.mjs';
import { checkOwnBoards } from './board_checks.mjs';
import { checkDevices, checkFixedRate } from './device_checks.mjs';
import { checkRace } from './race_checks.mjs';
import { checkReconnect } from './reconnect_checks.mjs';
import { checkArchivedCore, checkDesyncs, checkErrors, checkGhosts, checkLinksAndClock, checkLive, checkLiveArrival, checkStreamFile } from './feature_checks.mjs';
import { checkCarriedGround, checkClip, checkGroundRoad, checkLapOverlay } from './analysis_checks.mjs';
import { checkRoadAlwaysDrawn } from './road_checks.mjs';
import { checkSceneTrack, checkTrackFile } from './scene_checks.mjs';

// Each part's wall-clock time, printed as it ends, so a slow CI run names
// the part that grew.
async function timed(name, check) {
  const began = performance.now();
  const result = await check();
  console.log(`<-- ${name}: ${((performance.now() - began) / 1000).toFixed(1)} s`);
  return result;
}

const browser = await launch();
try {
  await timed('poses', () => checkPoses(browser));
  await timed('screenshots', () => checkScreenshots(browser));
  await timed('road always drawn', () => checkRoadAlwaysDrawn(browser));
  const race = await timed('20-car demo', async () => demo20());
  await timed('scrubbing', () => checkScrubbing(browser, race));
  await timed('ghosts', () => checkGhosts(browser, race));
  await timed('lap overlay', () => checkLapOverlay(browser, race));
  await timed('stream file', () => checkStreamFile(browser, race));
  await timed('links and clock', () => checkLinksAndClock(browser));
  await timed('desyncs', () => checkDesyncs(browser));
  await timed('removals', () => checkRemovals(browser));
  await timed('arrivals', () => checkArrivals(browser));
  await timed('resets', () => checkResets(browser));
  await timed('archived core', () => checkArchivedCore(browser));
  await timed('errors', () => checkErrors(browser));
  await timed('ground road', () => checkGroundRoad(browser));
  await timed('carried ground', () => checkCarriedGround(browser));
  await timed('glTF scene', () => checkSceneTrack(browser));
  await timed('track file', () => checkTrackFile(browser));
  await timed('clip', () => checkClip(browser));
  await timed('live', () => checkLive(browser));
  await timed('live arrival', () => checkLiveArrival(browser));
  const board = await leaderboard();
  try {
    // Before the play check: no best lap is stored yet, so no ghost.
    await timed('lap rules', () => checkLapRules(browser, board.url));
    await timed('play', () => checkPlay(browser, board.url));
    await timed('pages', () => checkPages(browser, board.url));
    await timed('devices', () => checkDevices(browser, board.url));
    await timed('fixed rate', () => checkFixedRate(browser, board.url));
  } finally {
    board.child.kill('SIGTERM');
  }
  await timed('own boards', () => checkOwnBoards(browser));
  await timed('online race', () => checkRace(browser));
  await timed('reconnect', () => checkReconnect(browser));
  // No page said anything wrong to its console that a check did not cause.
  const unexpected = browser.unexpectedErrors();
  if (unexpected.length > 0) {
    throw new Error(`console or page errors: ${unexpected.map((e) => `${e.url}: ${e.text}`).join('\n')}`);
  }
  console.log(`ok  no console or page errors on any page (${browser.errors.length} caused on purpose by the checks)`);
} finally {
  await browser.close();
}
