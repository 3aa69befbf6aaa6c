// The play page's devices, read on the page's thread (the only one that
// sees keyboard events and gamepads) and sent to the simulation thread as
// plain numbers: which keys are held, and each pad's axes and buttons.
//
// Keys: arrows or WASD drive, space is the handbrake, Q and E shift down
// and up (automatic and sequential gears), 1 to 7 and R hold an H-pattern
// gate, Backspace held rewinds (a flashback, up to 10 s), T puts the car
// back on the track (a reset: the lap in progress does not count). Keys
// are read from real keydown/keyup events; a key released while the page
// is hidden never sends its keyup, so losing focus releases every key.

/** Key codes per control. */
export const KEY_MAP = {
  left: ['ArrowLeft', 'KeyA'],
  right: ['ArrowRight', 'KeyD'],
  throttle: ['ArrowUp', 'KeyW'],
  brake: ['ArrowDown', 'KeyS'],
  handbrake: ['Space'],
  shiftDown: ['KeyQ'],
  shiftUp: ['KeyE'],
  reverse: ['KeyR'],
  rewind: ['Backspace'],
  reset: ['KeyT'],
  gear1: ['Digit1'],
  gear2: ['Digit2'],
  gear3: ['Digit3'],
  gear4: ['Digit4'],
  gear5: ['Digit5'],
  gear6: ['Digit6'],
  gear7: ['Digit7'],
};

const CONTROL_OF = new Map(Object.entries(KEY_MAP).flatMap(([control, codes]) => codes.map((c) => [c, control])));

/** Which keys are held, from the window's keyboard events. */
export class KeyboardSource {
  constructor(target = window) {
    this.held = new Set();
    this.onChange = () => {};
    const set = (event, down) => {
      const control = CONTROL_OF.get(event.code);
      // Typing in a field (a name, a chat line) drives nothing.
      if (!control || event.target?.closest?.('input, textarea, select')) return;
      event.preventDefault();
      const before = this.held.has(event.code);
      if (down) this.held.add(event.code);
      else this.held.delete(event.code);
      if (before !== down) this.onChange();
    };
    target.addEventListener('keydown', (e) => set(e, true));
    target.addEventListener('keyup', (e) => set(e, false));
    target.addEventListener('blur', () => {
      this.held.clear();
      this.onChange();
    });
  }

  /** `{left, right, throttle, brake, handbrake, shiftDown, shiftUp,
   * rewind, reset, gate}`, each control held or not; `gate` the H-pattern gate held
   * (−1 reverse, 1…7) or null. */
  keys() {
    const keys = /** @type {any} */ ({});
    for (const [control, codes] of Object.entries(KEY_MAP)) keys[control] = codes.some((c) => this.held.has(c));
    const gear = [1, 2, 3, 4, 5, 6, 7].find((g) => keys[`gear${g}`]);
    keys.gate = keys.reverse ? -1 : gear ?? null;
    return keys;
  }
}

/** The browser's gamepads; a test replaces `source` with a scripted one. */
export class GamepadSource {
  constructor() {
    this.source = () => (navigator.getGamepads ? [...navigator.getGamepads()].filter(Boolean) : []);
  }

  /** Each connected pad as `{axes, buttons}`: its axes as the browser
   * reports them, for a pad in the standard mapping also its analog
   * triggers (buttons 6 and 7) as axes 6 and 7 (where the standard
   * gamepad profile reads them; such a pad has four axes), and every
   * button as 1 pressed or 0. A wheel (no standard mapping) keeps every
   * axis where it is. */
  read() {
    return this.source().map((pad) => {
      const axes = new Float64Array(Math.max(8, pad.axes.length));
      axes.set(pad.axes);
      if (pad.mapping === 'standard') {
        axes[6] = pad.buttons[6]?.value ?? 0;
        axes[7] = pad.buttons[7]?.value ?? 0;
      }
      const buttons = Uint8Array.from(pad.buttons, (b) => (b.pressed ? 1 : 0));
      return { axes, buttons, pad };
    });
  }
}

/** Plays the force-feedback command on the pads that can rumble (the
 * Gamepad API's dual-rumble effect: the strong motor for the pull's
 * size; a pad has no direction). A wheel's motor needs WebHID
 * (wheel_hid.mjs). */
export function rumble(pads, output) {
  const magnitude = Math.min(1, Math.abs(output));
  for (const { pad } of pads) {
    pad?.vibrationActuator?.playEffect?.('dual-rumble', {
      duration: 100, strongMagnitude: magnitude, weakMagnitude: magnitude / 2,
    }).catch(() => {});
  }
}
