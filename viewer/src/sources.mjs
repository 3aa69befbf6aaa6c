// Where recordings come from: the deep link (`?src=`, `?name=` (what to
// call the first source), `?ghost=`, `?live=`, `?t=`, `?step=`, `?car=`,
// `?cam=`, `?speed=`, and
// `?sampleBudget=` bytes for tests of long replays), the file list `skidpad
// view` serves at `/files.json`, and files the user opens or drops. Kinds
// are told by their first bytes, not their names, by the wasm package's
// `fileKind` (the formats' own rule).

/** The deep link's settings; `problems` names each parameter that is
 * there but not a number (it is then ignored, as if absent). */
export function readLink(search = location.search) {
  const q = new URLSearchParams(search);
  const problems = [];
  const number = (name) => {
    if (!q.has(name)) return null;
    const text = q.get(name) ?? '';
    const value = text.trim() === '' ? NaN : Number(text);
    if (Number.isFinite(value)) return value;
    problems.push(`${name}=${text} is not a number: ignored`);
    return null;
  };
  return {
    problems,
    sources: q.getAll('src'),
    name: q.get('name'),
    ghosts: q.getAll('ghost'),
    live: q.get('live'),
    t: number('t'),
    step: number('step'),
    car: number('car'),
    cam: q.get('cam'),
    speed: number('speed'),
    sampleBudget: number('sampleBudget'),
    clip: clipRange(q.get('clip'), problems),
  };
}

/** `clip=A-B` (steps) as `[A, B]`, or null with a message for anything
 * else. */
function clipRange(text, problems) {
  if (text === null) return null;
  const match = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
  if (match) return [Number(match[1]), Number(match[2])];
  problems.push(`clip=${text} is not a range of steps (like clip=600-720): ignored`);
  return null;
}

/** The link's camera and speed, each replaced by the default with a
 * message when the page does not offer it. */
export function checkSettings(link, cameras, speeds) {
  const problems = [];
  let cam = cameras[0];
  if (link.cam !== null) {
    if (cameras.includes(link.cam)) cam = link.cam;
    else problems.push(`camera "${link.cam}" does not exist (${cameras.join(', ')}): showing ${cam}`);
  }
  let speed = 1;
  if (link.speed !== null) {
    if (speeds.includes(link.speed)) speed = link.speed;
    else problems.push(`speed ${link.speed} is not offered (${speeds.join(', ')}): playing at 1×`);
  }
  return { cam, speed, problems };
}

/** The link's car, step and time checked against the opened race
 * (`meta`: `cars`, and for a recording `steps` and `duration`; a live
 * race has neither end yet): an unknown car becomes car 0, a step or time
 * outside the recording the nearest end, each with a message. */
export function checkPosition(link, meta) {
  const problems = [];
  const cars = meta.cars.length;
  let car = 0;
  if (link.car !== null) {
    if (Number.isInteger(link.car) && link.car >= 0 && link.car < cars) car = link.car;
    else problems.push(`car ${link.car} is not in this race (cars 0 to ${cars - 1}): following car 0`);
  }
  const clamp = (name, value, last, unit) => {
    if (value === null || last === null || last === undefined) return value;
    if (value < 0) {
      problems.push(`${name} ${value} is before the start: showing the start`);
      return 0;
    }
    if (value > last) {
      problems.push(`${name} ${value} is past the end (${last}${unit}): showing the end`);
      return last;
    }
    return value;
  };
  const step = clamp('step', link.step === null ? null : Math.round(link.step), meta.steps, '');
  const t = clamp('t', link.t, meta.duration, ' s');
  let clip = null;
  if (link.clip) {
    const [from, to] = link.clip;
    const last = meta.steps ?? null;
    if (from < to && (last === null || to <= last)) clip = link.clip;
    else problems.push(`clip=${from}-${to} is not a stretch of this recording's steps 0 to ${last}: no clip marked`);
  }
  return { car, step, t, clip, problems };
}

/** Rewrites the address bar's `t`, `car` and `cam` (keeping the rest)
 * without adding history entries. */
export function writeLink({ t, car, cam }) {
  const url = new URL(location.href);
  url.searchParams.set('t', t.toFixed(3));
  url.searchParams.set('car', String(car));
  url.searchParams.set('cam', cam);
  history.replaceState(null, '', url);
}

/** Fetches a URL's bytes, with an error naming the URL. */
export async function fetchBytes(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`cannot fetch ${url}: ${e.message}`, { cause: e });
  }
  if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The files `skidpad view` offers (`[{ name, url }]`), or none when the
 * page is served some other way. A deep link that names its sources
 * opens those alone: it is asked for nothing else (another server, the
 * leaderboard's, has no list to offer). */
export async function servedFiles(link) {
  if (link.sources.length > 0 || link.live) return [];
  try {
    const response = await fetch('/files.json');
    if (!response.ok) return [];
    return await response.json();
  } catch {
    return [];
  }
}
