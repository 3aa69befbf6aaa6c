// The driver's leaderboard entry, fetched from the race server once the
// race is over: `GET /entry` beside the race's WebSocket, with the seat
// token (netplay/FORMAT.md, "Entries (HTTP)"). The server makes the
// entries when every car has finished or left, so a page whose driver
// finished first is told 202 (waiting) until the others are in: it asks
// again, a bounded number of times.

/** Milliseconds between asks while the entry is not made yet. */
const RETRY_MS = 2000;
/** Asks before giving up: ten minutes, longer than a slow driver's lap. */
const MAX_TRIES = 300;

/** The entry desk's URL for a race's WebSocket URL: the same host and
 * port, `http` for `ws` (`https` for `wss`), `entry` for the last path
 * segment `race`. */
export function entryUrl(raceUrl) {
  const url = new URL(raceUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  url.pathname = url.pathname.replace(/race$/, 'entry');
  url.search = '';
  url.hash = '';
  return url.href;
}

/** The file name a driver's entry is saved under. */
export function entryFileName(entry) {
  const driver = (entry.driver ?? 'driver').replace(/[^A-Za-z0-9_-]/g, '_');
  return `${driver}-car${entry.car}.skr`;
}

/**
 * Asks the race server for the entry of the seat `token` until it is made.
 * Resolves with `{ bytes, car, driver }`; rejects with the server's reason
 * when it refuses (401, 422) or gives none within `tries` asks.
 */
export async function fetchEntry(raceUrl, token, { retryMs = RETRY_MS, tries = MAX_TRIES } = {}) {
  const url = entryUrl(raceUrl);
  for (let i = 0; i < tries; i++) {
    const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (answer.status === 200) {
      return {
        bytes: new Uint8Array(await answer.arrayBuffer()),
        car: Number(answer.headers.get('x-skidpad-car')),
        driver: decodeDriver(answer.headers.get('x-skidpad-driver')),
      };
    }
    if (answer.status !== 202) throw new Error(`the race server made no entry (${answer.status}): ${await reason(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
  throw new Error(`the race server made no entry within ${(tries * retryMs) / 1000} s`);
}

/** The driver's name from its percent-encoded header; null without one. */
export function decodeDriver(header) {
  if (header === null) return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}

async function reason(answer) {
  const body = await answer.text();
  try {
    return JSON.parse(body).error ?? body;
  } catch {
    return body;
  }
}
