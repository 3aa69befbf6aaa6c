// The play page's device row (`#devices` in play.html): which device
// profile drives (the standard gamepad, or one the player calibrated or
// imported, kept in this browser), the calibration screen, export and
// import of a profile as a JSON file, the gear mode, and the wheel's
// motor over WebHID.

import * as sk from 'skidpad';
import { CalibrationScreen } from './calibration.mjs';
import { chooseProfile, chosenProfile, profiles, removeProfile, saveProfile, STANDARD } from './profiles.mjs';
import { HidWheel } from './wheel_hid.mjs';

const $ = (selector) => /** @type {any} */ (document.querySelector(selector));

export class DevicePanel {
  /** `onError(e)` shows a failure; `onChange()` hears of a new profile. */
  constructor({ onError, onChange = () => {} }) {
    this.onError = onError;
    this.onChange = onChange;
    this.calibration = new CalibrationScreen(sk.AxisFinder, (json) => {
      saveProfile(json);
      this.refresh();
    });
    this.wheel = new HidWheel();
    this.wheelName = null;
    this.profile = null;
    $('#profile').onchange = () => {
      chooseProfile($('#profile').value);
      this.refresh();
    };
    $('#calibrate').onclick = () => this.calibration.start();
    $('#export-profile').onclick = () => this.exportProfile();
    $('#import-profile').onchange = () => this.importProfile().catch(onError);
    $('#remove-profile').onclick = () => {
      removeProfile(chosenProfile().name);
      this.refresh();
    };
    $('#connect-wheel').hidden = !this.wheel.available;
    $('#connect-wheel').onclick = () => this.connectWheel().catch(onError);
    const gears = new URLSearchParams(location.search).get('gears');
    if (gears) $('#gears').value = gears;
  }

  /** Fills the profile list and makes the chosen profile the one used. */
  refresh() {
    const chosen = chosenProfile();
    const select = $('#profile');
    select.replaceChildren(...profiles().map((p) => new Option(p.name, p.name)));
    select.value = chosen.name;
    $('#remove-profile').disabled = chosen.name === STANDARD;
    this.profile?.free();
    this.profile = sk.DeviceProfile.fromJson(chosen.json);
    this.json = chosen.json;
    this.onChange();
  }

  /** The gear mode chosen (`automatic`, `sequential`, `h_pattern`). */
  get gears() {
    return $('#gears').value;
  }

  /** A display frame with this frame's pads (the calibration watches the
   * first). */
  frame(pads) {
    this.calibration.frame(pads);
  }

  exportProfile() {
    const { name, json } = chosenProfile();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    link.download = `${name.replace(/[^\w.-]+/g, '_')}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  async importProfile() {
    const input = $('#import-profile');
    const [file] = input.files;
    input.value = '';
    if (!file) return;
    if (file.size > 64 * 1024) throw new Error(`${file.name}: ${file.size} bytes; a profile is at most 64 KiB`);
    try {
      saveProfile(await file.text());
    } catch (e) {
      throw new Error(`${file.name} is not a device profile: ${e?.message ?? e}`, { cause: e });
    }
    this.refresh();
  }

  async connectWheel() {
    this.wheelName = await this.wheel.connect();
  }
}
