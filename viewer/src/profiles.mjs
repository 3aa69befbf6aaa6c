// The device profiles a player can drive with, kept in this browser:
// the input layer's standard gamepad profile (always there, not
// removable) and every profile the player made by calibrating a device
// or imported from a file, by name. A profile is stored as the JSON the
// input layer reads, and checked by it (`DeviceProfile.fromJson`) before
// it is stored, so what the worker is given always parses.

import * as sk from 'skidpad';

const LIST_KEY = 'skidpad.profiles';
const CHOSEN_KEY = 'skidpad.profile';
export const STANDARD = 'standard gamepad';

function readList() {
  try {
    const list = JSON.parse(localStorage.getItem(LIST_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((t) => typeof t === 'string') : [];
  } catch {
    // A corrupt entry (edited by hand) loses the saved profiles, not the page.
    return [];
  }
}

/** Checks `json` with the input layer; returns its name and its text as
 * the input layer writes it. Throws the input layer's message. */
export function checkProfile(json) {
  const profile = sk.DeviceProfile.fromJson(json);
  try {
    return { name: profile.name, json: profile.toJson() };
  } finally {
    profile.free();
  }
}

/** Every profile, `[{name, json, builtIn}]`, the standard gamepad first. */
export function profiles() {
  const standard = sk.DeviceProfile.standardGamepad();
  const all = [{ name: STANDARD, json: standard.toJson(), builtIn: true }];
  standard.free();
  for (const text of readList()) {
    try {
      const { name, json } = checkProfile(text);
      if (name !== STANDARD) all.push({ name, json, builtIn: false });
    } catch {
      // A stored profile this version refuses is left out, not fatal.
    }
  }
  return all;
}

/** Stores `json` (replacing a profile of the same name) and chooses it. */
export function saveProfile(json) {
  const checked = checkProfile(json);
  if (checked.name === STANDARD) throw new Error(`"${STANDARD}" is the built-in profile's name; choose another`);
  const kept = readList().filter((t) => {
    try {
      return checkProfile(t).name !== checked.name;
    } catch {
      return false;
    }
  });
  localStorage.setItem(LIST_KEY, JSON.stringify([...kept, checked.json]));
  chooseProfile(checked.name);
  return checked;
}

/** Forgets the stored profile `name` (the standard one stays). */
export function removeProfile(name) {
  const kept = readList().filter((t) => {
    try {
      return checkProfile(t).name !== name;
    } catch {
      return false;
    }
  });
  localStorage.setItem(LIST_KEY, JSON.stringify(kept));
  if (chosenProfile().name === name) chooseProfile(STANDARD);
}

export function chooseProfile(name) {
  localStorage.setItem(CHOSEN_KEY, name);
}

/** The chosen profile, or the standard one if the choice is gone. */
export function chosenProfile() {
  const all = profiles();
  const name = localStorage.getItem(CHOSEN_KEY);
  return all.find((p) => p.name === name) ?? all[0];
}
