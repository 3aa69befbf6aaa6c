//! The open differential: equal torque to both output shafts, carrier speed
//! the mean of the two.

/// Mean speed of the driven wheels, rad/s (0 when there are none).
pub(crate) fn carrier_speed(omegas: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = omegas.fold((0.0, 0.0), |(s, n), w| (s + w, n + 1.0));
    if n > 0.0 { sum / n } else { 0.0 }
}

/// Splits `torque` equally over the driven wheel indices.
pub(crate) fn split_open(torque: f64, driven: &[usize], out: &mut [f64; 4]) {
    if driven.is_empty() {
        return;
    }
    let share = torque / driven.len() as f64;
    for &i in driven {
        out[i] = share;
    }
}
