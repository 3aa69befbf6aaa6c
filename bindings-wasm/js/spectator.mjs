// A spectator client for the skidpad spectator service (spectator/README.md):
// joins a running race late and follows it chunk by chunk with the wasm
// package's StreamFollower, in a browser or in node (fetch only; the live
// tail's server-sent events are read from the response body, so no
// EventSource is needed).
//
//   import { spectate } from 'skidpad/spectator';
//   const race = await spectate(skidpad, 'http://127.0.0.1:8788/races/demo', {
//     onChunk: (follower) => draw(follower.pose(0)),
//   });
//   await race.done;          // resolves at the end of the race
//   race.follower.worldHash() // the host's world at its last chunk

async function bytesOf(response, what) {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Yields { event, data } from a server-sent-events response body.
async function* events(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    let end;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (data !== '') yield { event, data };
    }
  }
}

/**
 * Joins the race at `raceUrl` (…/races/{id}) now. `sk` is the loaded wasm
 * package. Returns `{ follower, done, stop }`: `follower` is the
 * StreamFollower (`step`, `worldHash()`, `pose(car)`), `done` a promise
 * that resolves with it at the end of the race (or rejects on an error),
 * `stop()` leaves early. `onChunk(follower, n)` runs after each chunk.
 * `playChunk(follower, bytes)` plays a chunk (default `pushChunk`; a
 * viewer passes one calling `pushChunkPoses` to get every step).
 *
 * @param {any} sk the loaded wasm package
 * @param {string} raceUrl
 * @param {{
 *   onChunk?: (follower: any, chunk: number) => void,
 *   playChunk?: (follower: any, bytes: Uint8Array) => void,
 *   fetchImpl?: typeof fetch,
 * }} [options]
 */
export async function spectate(
  sk,
  raceUrl,
  { onChunk = () => {}, playChunk = (f, bytes) => f.pushChunk(bytes), fetchImpl = fetch } = {},
) {
  const header = await bytesOf(await fetchImpl(`${raceUrl}/header`), 'header');
  const follower = new sk.StreamFollower(header);
  const controller = new AbortController();
  // The tail first, so no chunk sealed while joining is missed.
  const live = await fetchImpl(`${raceUrl}/live`, { signal: controller.signal });
  if (!live.ok) throw new Error(`live: HTTP ${live.status}`);
  let next = 1;
  const latest = await fetchImpl(`${raceUrl}/keyframe/latest`);
  if (latest.ok) {
    const n = Number(latest.headers.get('x-skidpad-chunk'));
    const piece = await bytesOf(latest, 'latest keyframe');
    // Cars that joined before chunk n: their definitions come first.
    const arrivals = await bytesOf(await fetchImpl(`${raceUrl}/arrivals/${n}`), `arrivals before ${n}`);
    follower.pushArrivals(arrivals);
    playChunk(follower, piece);
    onChunk(follower, n);
    next = n + 1;
  }
  const done = (async () => {
    for await (const { event, data } of events(live.body)) {
      const upto = Number(data);
      while (next <= upto) {
        const chunk = await bytesOf(await fetchImpl(`${raceUrl}/chunks/${next}`), `chunk ${next}`);
        playChunk(follower, chunk);
        onChunk(follower, next);
        next += 1;
      }
      if (event === 'end') {
        controller.abort();
        return follower;
      }
    }
    throw new Error('the live tail closed before the race ended');
  })();
  return { follower, done, stop: () => controller.abort() };
}
