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
//! An axle's differential acts within the wheels' spin update, sharing its
//! impulse by the wheels' effective inertias (tire stiffness included), so
//! the tire forces of the same substep follow the coupled speeds
//! ([`settle_axle`]); the AWD centre differential acts on the bare
//! inertias after it ([`couple_centre`]).

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

/// The speeds of an axle's left and right wheels once its differential
/// has acted within their spin update. `omega` are the speeds each wheel's
/// own update reached and `h_over_inertia` its spin change per unit torque
/// impulse: through the tire's slip stiffness a wheel resists a change of
/// speed far more than its bare inertia does, so the differential's
/// impulse is shared by those effective inertias, and the tire forces
/// computed at the returned speeds include the differential's effect in
/// the same substep. (Coupling the bare wheels after their update, with
/// the forces left at the uncoupled speeds, lags the differential's yaw
/// moment by a substep: an error of first order in the substep.)
pub(crate) fn settle_axle(
    def: &CarDefinition,
    front: bool,
    drive: &[f64; 4],
    omega: [f64; 2],
    h_over_inertia: [f64; 2],
    h: f64,
) -> [f64; 2] {
    let through = if front {
        drive[0] + drive[1]
    } else {
        drive[2] + drive[3]
    };
    let inertia = [h / h_over_inertia[0], h / h_over_inertia[1]];
    match couple_axle(def, front, through, omega, inertia, h) {
        Some((dl, dr)) => [omega[0] + dl, omega[1] + dr],
        None => omega,
    }
}

/// The speed changes the axle's differential makes to its left and right
/// wheels (spinning at `omega`, with inertias `inertia`) in a substep of
/// `h` while `through` N·m drive the axle; None for an undriven axle or an
/// open differential.
fn couple_axle(
    def: &CarDefinition,
    front: bool,
    through: f64,
    omega: [f64; 2],
    inertia: [f64; 2],
    h: f64,
) -> Option<(f64, f64)> {
    let d = &def.differentials;
    let kind = match (def.drive, front) {
        (DriveLayout::Fwd | DriveLayout::Awd, true) => d.front,
        (DriveLayout::Rwd | DriveLayout::Awd, false) => d.rear,
        _ => return None,
    };
    let lock = locking_torque(kind, through)?;
    Some(equalise(
        omega[0],
        inertia[0],
        omega[1],
        inertia[1],
        lock * h,
    ))
}

/// Applies the AWD centre differential to the wheel speeds after a substep
/// of `h` (nothing for two-wheel drive).
pub(crate) fn couple_centre(
    def: &CarDefinition,
    drive: &[f64; 4],
    inertia: &[f64; 4],
    wheel_omega: &mut [f64; 4],
    h: f64,
) {
    let d = &def.differentials;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vehicle::presets::preset;

    const H: f64 = 1.0 / 300.0;

    #[test]
    fn a_locked_axle_settles_at_one_speed_weighted_by_effective_inertia() {
        // The kart's rear axle is locked: the wheels end at one speed, the
        // one that keeps Σ (h / h_over_inertia)·ω, so the stiffer (more
        // loaded) wheel moves less.
        let kart = preset("kart").unwrap();
        let (omega, h_over_inertia) = ([30.0, 34.0], [H / 2.0, H / 6.0]);
        let [l, r] = settle_axle(
            &kart,
            false,
            &[0.0, 0.0, 10.0, 10.0],
            omega,
            h_over_inertia,
            H,
        );
        assert_eq!(l, r);
        assert!((2.0 * l + 6.0 * r - (2.0 * 30.0 + 6.0 * 34.0)).abs() < 1e-12);
        assert!((l - 33.0).abs() < 1e-12, "{l}");
    }

    #[test]
    fn open_and_undriven_axles_are_left_alone() {
        let kart = preset("kart").unwrap();
        let omega = [30.0, 34.0];
        let front = settle_axle(&kart, true, &[0.0; 4], omega, [H; 2], H);
        assert_eq!(front, omega);
        let hatchback = preset("fwd_hatchback").unwrap();
        assert_eq!(hatchback.differentials.front, DifferentialKind::Open);
        assert_eq!(
            settle_axle(&hatchback, true, &[50.0; 4], omega, [H; 2], H),
            omega
        );
    }

    #[test]
    fn a_limited_slip_axle_moves_the_speeds_by_its_locking_torque_at_most() {
        let mut car = preset("rwd_sports").unwrap();
        car.differentials.rear = DifferentialKind::LimitedSlip {
            preload: 50.0,
            lock_ratio: 0.0,
        };
        // Unit effective inertias: the impulse 50 N·m · h changes each
        // wheel's speed by 50·h rad/s, short of meeting.
        let [l, r] = settle_axle(&car, false, &[0.0; 4], [0.0, 10.0], [H; 2], H);
        assert!((l - 50.0 * H).abs() < 1e-12 && (r - (10.0 - 50.0 * H)).abs() < 1e-12);
    }
}
