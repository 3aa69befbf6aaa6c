// A force-feedback sink for wheels over WebHID (Chromium-based browsers;
// a page served from 127.0.0.1 or https, and a click to pick the device).
// The Gamepad API reads a wheel's axes and buttons but cannot drive its
// motor; WebHID can, for wheels whose output reports are known.
//
// Supported: Logitech wheels that speak the classic force-feedback slot
// protocol, as the Linux kernel's hid-lg4ff driver documents it — 7-byte
// output reports (no report id): `f5 00 00 00 00 00 00` turns the wheel's
// own centring spring off, `11 08 LL 80 00 00 00` plays a constant force
// of level LL in slot 1 (0x80 none, 0x00 and 0xff full either way) and
// `13 00 00 00 00 00 00` stops slot 1. Logitech's newer wheels (G920,
// G923 for Xbox) speak HID++ instead, and other brands their own
// protocols; they are not listed, so the browser does not offer them.
//
// What has been tested: the reports this sink sends to a scripted device
// in headless Chromium (the play check). What has not, for want of the
// hardware: that a real wheel turns the way we assume for a positive
// level (the driver's convention: positive level, the wheel pulled
// clockwise); `invert` flips it.

/** Logitech's vendor id and the wheels of the classic protocol. */
export const LOGITECH = 0x046d;
export const CLASSIC_WHEELS = [
  { productId: 0xc294, name: 'Driving Force / Formula Force EX' },
  { productId: 0xc295, name: 'MOMO Force' },
  { productId: 0xc298, name: 'Driving Force Pro' },
  { productId: 0xc299, name: 'G25' },
  { productId: 0xc29a, name: 'Driving Force GT' },
  { productId: 0xc29b, name: 'G27' },
  { productId: 0xc24f, name: 'G29' },
  { productId: 0xca03, name: 'MOMO Racing' },
];

const AUTOCENTRE_OFF = [0xf5, 0, 0, 0, 0, 0, 0];
const STOP = [0x13, 0, 0, 0, 0, 0, 0];

/** The level byte for an output in [−1, 1] (a share of the wheel's
 * peak torque, positive pulling right). */
export function levelByte(output, invert = false) {
  const share = Math.max(-1, Math.min(1, Number.isFinite(output) ? output : 0));
  return Math.max(0, Math.min(255, 0x80 + Math.round((invert ? -share : share) * 127)));
}

/** The report for an output: a constant force, or a stop at zero. */
export function forceReport(output, invert = false) {
  const level = levelByte(output, invert);
  return level === 0x80 ? STOP : [0x11, 0x08, level, 0x80, 0, 0, 0];
}

export class HidWheel {
  /** `hid` is `navigator.hid` (a test passes a scripted one). */
  constructor(hid = /** @type {any} */ (navigator).hid, { invert = false } = {}) {
    this.hid = hid;
    this.invert = invert;
    this.device = null;
    this.lastLevel = null;
    this.sent = 0;
    this.error = null;
  }

  /** Whether this browser offers WebHID at all. */
  get available() {
    return Boolean(this.hid?.requestDevice);
  }

  /** Asks the player to pick a wheel (needs a click), opens it and turns
   * its own centring spring off, so only the simulation's torque pulls.
   * Returns the wheel's name, or null if none was picked. */
  async connect() {
    const filters = CLASSIC_WHEELS.map(({ productId }) => ({ vendorId: LOGITECH, productId }));
    const [device] = await this.hid.requestDevice({ filters });
    if (!device) return null;
    if (!device.opened) await device.open();
    this.device = device;
    this.lastLevel = null;
    await this.send(AUTOCENTRE_OFF);
    await this.send(STOP);
    this.lastLevel = 0x80;
    const known = CLASSIC_WHEELS.find((w) => w.productId === device.productId);
    return known?.name ?? device.productName;
  }

  async send(bytes) {
    try {
      await this.device.sendReport(0, Uint8Array.from(bytes));
      this.sent += 1;
    } catch (e) {
      // An unplugged wheel: stop driving it, say why once.
      this.error = `the wheel stopped taking force feedback: ${e?.message ?? e}`;
      this.device = null;
    }
  }

  /** Plays `output` (the force-feedback stage's command); a report goes
   * out only when the level byte changes, which bounds the traffic at
   * the stage's rate limit. */
  play(output) {
    if (!this.device) return;
    const level = levelByte(output, this.invert);
    if (level === this.lastLevel) return;
    this.lastLevel = level;
    this.send(forceReport(output, this.invert));
  }

  /** Stops the force (the page is left or the run ends). */
  stop() {
    this.play(0);
  }
}
