//! Differentials: how drive torque is split between wheels, and how far
//! the wheels of an axle (and, for AWD, the two axles) may turn at
//! different speeds.
//!
//! Torque splits by the open-differential rule (equal per wheel; the
//! centre differential by its front share). A locked or limited-slip
//! differential then acts after the wheels' spin update as a velocity-level
//! friction constraint: an internal impulse moves the two sides' speeds
//! toward their common (momentum-weighted) speed, limited to what the
//! locking torque can do in one substep (unlimited when locked). This is
//! unconditionally stable at any substep, unlike a stiff coupling torque.

use crate::vehicle::definition::{CarDefinition, DifferentialKind, DriveLayout};

/// Mean speed of the driven wheels, rad/s (0 when there are none).
pub(crate) fn carrier_speed(omegas: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = omegas.fold((0.0, 0.0), |(s, n), w| (s + w, n + 1.0));
    if n > 0.0 { sum / n } else { 0.0 }
}

/// The gearbox output speed the engine sees, rad/s: the driven axle's
/// carrier, or for AWD the centre differential's input,
/// s·ω_front + (1 − s)·ω_rear with s its front torque share.
pub(crate) fn input_speed(def: &CarDefinition, wheel_omega: &[f64; 4]) -> f64 {
    match def.drive {
        DriveLayout::Fwd | DriveLayout::Rwd => {
            carrier_speed(def.drive.driven_wheels().iter().map(|&i| wheel_omega[i]))
        }
        DriveLayout::Awd => {
            let s = def.differentials.centre.front_share;
            let front = 0.5 * (wheel_omega[0] + wheel_omega[1]);
            let rear = 0.5 * (wheel_omega[2] + wheel_omega[3]);
            s * front + (1.0 - s) * rear
        }
    }
}

/// Splits `torque` over the driven wheels.
pub(crate) fn split(def: &CarDefinition, torque: f64, out: &mut [f64; 4]) {
    match def.drive {
        DriveLayout::Fwd | DriveLayout::Rwd => split_open(torque, def.drive.driven_wheels(), out),
        DriveLayout::Awd => {
            let s = def.differentials.centre.front_share;
            split_open(torque * s, &[0, 1], out);
            split_open(torque * (1.0 - s), &[2, 3], out);
        }
    }
}

/// Splits `torque` equally over the wheel indices.
fn split_open(torque: f64, wheels: &[usize], out: &mut [f64; 4]) {
    if wheels.is_empty() {
        return;
    }
    let share = torque / wheels.len() as f64;
    for &i in wheels {
        out[i] = share;
    }
}

/// Most torque a differential of `kind` can pass between its sides while
/// `through` N·m go through it (None: open, no coupling).
fn locking_torque(kind: DifferentialKind, through: f64) -> Option<f64> {
    match kind {
        DifferentialKind::Open => None,
        DifferentialKind::Locked => Some(f64::INFINITY),
        DifferentialKind::LimitedSlip {
            preload,
            lock_ratio,
        } => Some(preload + lock_ratio * through.abs()),
    }
}

/// Moves two sides (speeds `a`, `b`, inertias `ia`, `ib`) toward their
/// common speed by an internal impulse of at most `max_impulse`; returns
/// the speed changes of each side.
fn equalise(a: f64, ia: f64, b: f64, ib: f64, max_impulse: f64) -> (f64, f64) {
    // The impulse that would make the speeds equal, conserving momentum.
    let full = ia * ib * (b - a) / (ia + ib);
    let impulse = full.clamp(-max_impulse, max_impulse);
    (impulse / ia, -impulse / ib)
}

/// Applies the locked or limited-slip differentials to the wheel speeds
/// after a substep of `h`; `drive` is what the drivetrain sent to each
/// wheel and `inertia` each wheel's spin inertia.
pub(crate) fn couple(
    def: &CarDefinition,
    drive: &[f64; 4],
    inertia: &[f64; 4],
    wheel_omega: &mut [f64; 4],
    h: f64,
) {
    let d = &def.differentials;
    let axles: &[(usize, usize, DifferentialKind)] = match def.drive {
        DriveLayout::Fwd => &[(0, 1, d.front)][..],
        DriveLayout::Rwd => &[(2, 3, d.rear)][..],
        DriveLayout::Awd => &[(0, 1, d.front), (2, 3, d.rear)][..],
    };
    for &(l, r, kind) in axles {
        if let Some(lock) = locking_torque(kind, drive[l] + drive[r]) {
            let (dl, dr) = equalise(
                wheel_omega[l],
                inertia[l],
                wheel_omega[r],
                inertia[r],
                lock * h,
            );
            wheel_omega[l] += dl;
            wheel_omega[r] += dr;
        }
    }
    if def.drive == DriveLayout::Awd {
        let through = drive.iter().sum::<f64>();
        if let Some(lock) = locking_torque(d.centre.coupling, through) {
            // The axles as two bodies turning at their carrier speeds; a
            // change of carrier speed moves both of its wheels alike, which
            // keeps each axle's own coupling intact.
            let front = 0.5 * (wheel_omega[0] + wheel_omega[1]);
            let rear = 0.5 * (wheel_omega[2] + wheel_omega[3]);
            let (df, dr) = equalise(
                front,
                inertia[0] + inertia[1],
                rear,
                inertia[2] + inertia[3],
                lock * h,
            );
            for (i, delta) in [(0, df), (1, df), (2, dr), (3, dr)] {
                wheel_omega[i] += delta;
            }
        }
    }
}
