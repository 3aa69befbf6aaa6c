// The best lap per track and car, kept in the browser (IndexedDB) so the
// next session races it as a ghost.

const DB = 'skidpad-play';
const STORE = 'best-laps';

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function transact(mode, work) {
  return open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
  }));
}

const key = (track, car) => `${track}/${car}`;

/** `{time, bytes}` of the best lap on `track` in `car`, or null. */
export async function loadBest(track, car) {
  try {
    return (await transact('readonly', (s) => s.get(key(track, car)))) ?? null;
  } catch {
    // A browser without storage (private mode) races without a ghost.
    return null;
  }
}

/** Keeps `bytes` (an `.skg` lap) if it beats the stored lap. */
export async function saveIfBest(track, car, time, bytes) {
  const best = await loadBest(track, car);
  if (best && best.time <= time) return false;
  await transact('readwrite', (s) => s.put({ time, bytes }, key(track, car)));
  return true;
}
