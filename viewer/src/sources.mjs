// Where recordings come from: the deep link (`?src=`, `?ghost=`,
// `?live=`, `?t=`, `?step=`, `?car=`, `?cam=`, `?speed=`, and
// `?sampleBudget=` bytes for tests of long replays), the file list `skidpad
// view` serves at `/files.json`, and files the user opens or drops. Kinds
// are told by their first bytes, not their names, by the wasm package's
// `fileKind` (the formats' own rule).

/** The deep link's settings. */
export function readLink(search = location.search) {
  const q = new URLSearchParams(search);
  const number = (name) => (q.has(name) && Number.isFinite(Number(q.get(name))) ? Number(q.get(name)) : null);
  return {
    sources: q.getAll('src'),
    ghosts: q.getAll('ghost'),
    live: q.get('live'),
    t: number('t'),
    step: number('step'),
    car: number('car'),
    cam: q.get('cam'),
    speed: number('speed'),
    sampleBudget: number('sampleBudget'),
  };
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
 * page is served some other way. */
export async function servedFiles() {
  try {
    const response = await fetch('/files.json');
    if (!response.ok) return [];
    return await response.json();
  } catch {
    return [];
  }
}
