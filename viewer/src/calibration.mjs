// The calibration screen: the player moves each control when asked and
// the input layer's `AxisFinder` finds the axis and records its travel;
// buttons are found by pressing them. The result is a device profile
// (the input layer's JSON), checked and stored by profiles.mjs.
//
// Steps: let go of everything (the rest readings) → turn the wheel to
// both stops → press the accelerator → press the brake → the shift-up,
// shift-down and handbrake buttons → name, dead zone and curve. A pedal
// or button step can be skipped (a wheel without a handbrake button); the
// pedals come as a pair or not at all (the profile's split pedals). The
// page feeds `frame(pad)` every display frame with the pad being
// calibrated, as `GamepadSource.read()` gives it. The wasm package's
// `AxisFinder` class is passed in, so the flow runs under node's tests
// with the node build of the package.

const STEPS = [
  { id: 'rest', prompt: 'Let go of the wheel (or sticks) and the pedals, then press next.' },
  { id: 'steer', prompt: 'Turn the wheel to the left stop, then to the right stop, then back to the centre; press next.' },
  { id: 'throttle', prompt: 'Press the accelerator to the floor and let it go; press next (skip: no pedals).', skip: true },
  { id: 'brake', prompt: 'Press the brake to the floor and let it go; press next.', skip: true },
  { id: 'shift_up', prompt: 'Press the shift-up button (or paddle).', skip: true, button: true },
  { id: 'shift_down', prompt: 'Press the shift-down button (or paddle).', skip: true, button: true },
  { id: 'handbrake', prompt: 'Press the handbrake button.', skip: true, button: true },
  { id: 'finish', prompt: 'Name the profile, set the steering dead zone and curve, and save.' },
];

/** The calibration state, step by step; no DOM here (`CalibrationScreen`
 * shows it). */
export class Calibration {
  /** `AxisFinder`: the npm package's class. */
  constructor(AxisFinder) {
    this.AxisFinder = AxisFinder;
    this.step = 0;
    this.rest = null;
    this.finder = null;
    this.found = {};
    this.buttons = {};
    this.lastButtons = null;
  }

  get current() {
    return STEPS[this.step];
  }

  /** Axes already given a role (a later search skips them). */
  assignedAxes() {
    return ['steer', 'throttle', 'brake'].filter((r) => this.found[r]).map((r) => this.found[r].axis);
  }

  /** One frame of the pad being calibrated; returns what the step has
   * found so far (shown to the player), or null. */
  frame(pad) {
    const id = this.current.id;
    if (id === 'rest') {
      this.pending = Float64Array.from(pad.axes);
      return null;
    }
    if (this.current.button) {
      const taken = new Set(Object.values(this.buttons));
      if (this.lastButtons) {
        const pressed = [...pad.buttons].findIndex((b, i) => b && !this.lastButtons[i] && !taken.has(i));
        if (pressed >= 0) this.pending = pressed;
      }
      this.lastButtons = Uint8Array.from(pad.buttons);
      return this.pending === undefined ? null : `button ${this.pending}`;
    }
    if (!this.finder) return null;
    this.finder.observe(Float64Array.from(pad.axes));
    const found = this.finder.found();
    if (!found) return null;
    const travel = id === 'steer' ? found.centred : found.pedal;
    this.pending = travel ? { axis: found.axis, travel } : undefined;
    return travel
      ? `axis ${found.axis}: ${Object.entries(travel).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`
      : `axis ${found.axis}: keep moving it (both ways from rest)`;
  }

  /** Whether the step has what it needs to go on. */
  ready() {
    const id = this.current.id;
    return id === 'finish' || this.pending !== undefined;
  }

  /** Takes the step's finding and moves on; `skip` moves on without one. */
  next(skip = false) {
    const id = this.current.id;
    if (!skip) {
      if (!this.ready()) throw new Error('nothing found yet: move the control as asked');
      if (id === 'rest') this.rest = this.pending;
      else if (this.current.button) this.buttons[id] = this.pending;
      else if (id !== 'finish') this.found[id] = this.pending;
    } else if (!this.current.skip) {
      throw new Error(`the ${id} step cannot be skipped`);
    } else if (id === 'throttle') {
      // No throttle, no brake: the pedals come as a pair.
      this.step += 1;
    }
    this.step = Math.min(this.step + 1, STEPS.length - 1);
    this.pending = undefined;
    this.lastButtons = null;
    this.finder?.free();
    this.finder = null;
    const next = this.current.id;
    if (next === 'steer' || next === 'throttle' || next === 'brake') {
      this.finder = new this.AxisFinder(this.rest, Uint32Array.from(this.assignedAxes()));
    }
  }

  /** The profile's JSON text for `name`, a steering dead zone (share of
   * the travel) and a curve exponent. */
  profile({ name, deadZone = 0.02, exponent = 1 }) {
    const { steer, throttle, brake } = this.found;
    if (!steer) throw new Error('no steering axis was found');
    const profile = {
      name,
      steer: { axis: steer.axis, travel: steer.travel, response: { dead_zone: deadZone, exponent } },
      buttons: {
        shift_up: this.buttons.shift_up ?? null,
        shift_down: this.buttons.shift_down ?? null,
        handbrake: this.buttons.handbrake ?? null,
      },
    };
    if (throttle && brake) {
      profile.pedals = { split: { throttle: { axis: throttle.axis, travel: throttle.travel }, brake: { axis: brake.axis, travel: brake.travel } } };
    }
    return JSON.stringify(profile);
  }
}

/** The calibration dialog (`#calibration` in play.html) over a
 * `Calibration`; `onSave(json)` stores the profile and may throw (the
 * message is shown). */
export class CalibrationScreen {
  constructor(AxisFinder, onSave) {
    this.AxisFinder = AxisFinder;
    const $ = (s) => /** @type {any} */ (document.querySelector(s));
    this.dialog = $('#calibration');
    this.prompt = $('#cal-prompt');
    this.found = $('#cal-found');
    this.nextButton = $('#cal-next');
    this.skipButton = $('#cal-skip');
    this.finishFields = $('#cal-finish');
    this.onSave = onSave;
    this.calibration = null;
    this.nextButton.onclick = () => this.advance(false);
    this.skipButton.onclick = () => this.advance(true);
    $('#cal-cancel').onclick = () => this.close();
  }

  get open() {
    return this.calibration !== null;
  }

  start() {
    this.calibration = new Calibration(this.AxisFinder);
    this.dialog.hidden = false;
    this.show(null);
  }

  close() {
    this.calibration = null;
    this.dialog.hidden = true;
  }

  /** A display frame with the pads read this frame: the first pad is
   * the one calibrated. */
  frame(pads) {
    if (!this.calibration) return;
    if (pads.length === 0) {
      this.found.textContent = 'no gamepad or wheel seen yet: connect one and press any of its buttons';
      this.nextButton.disabled = true;
      return;
    }
    this.show(this.calibration.frame(pads[0]));
  }

  show(found) {
    const c = this.calibration;
    this.prompt.textContent = c.current.prompt;
    this.found.textContent = found ?? '';
    this.nextButton.textContent = c.current.id === 'finish' ? 'save' : 'next';
    this.nextButton.disabled = !c.ready();
    this.skipButton.hidden = !c.current.skip;
    this.finishFields.hidden = c.current.id !== 'finish';
  }

  advance(skip) {
    const c = this.calibration;
    try {
      if (c.current.id === 'finish') {
        const value = (id) => /** @type {HTMLInputElement} */ (document.querySelector(id)).value;
        this.onSave(c.profile({
          name: value('#cal-name').trim(),
          deadZone: Number(value('#cal-dead-zone')),
          exponent: Number(value('#cal-exponent')),
        }));
        this.close();
        return;
      }
      c.next(skip);
      this.show(null);
    } catch (e) {
      this.found.textContent = e?.message ? String(e.message) : String(e);
    }
  }
}
