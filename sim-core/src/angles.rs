//! Angles drawn between two recorded values: wrapping into (−π, π] and
//! interpolating along the shorter arc, in `f32` (the precision ghosts
//! and network frames carry). Presentation only: nothing simulated goes
//! through here. One home for every crate that draws a pose between two
//! samples (ghost playback, a network client's interpolation).

use core::f32::consts::PI;

const TWO_PI: f32 = 2.0 * PI;

/// Wraps an angle into (−π, π].
#[must_use]
pub fn wrap_angle(a: f32) -> f32 {
    // Playback only ever wraps values within one turn of the range, where a
    // conditional add is exact and far cheaper than a remainder.
    if a.abs() <= 3.0 * PI {
        return wrap_once(a);
    }
    wrap_once(a % TWO_PI)
}

/// Wraps an angle within (−3π, 3π] into (−π, π].
fn wrap_once(a: f32) -> f32 {
    if a > PI {
        a - TWO_PI
    } else if a <= -PI {
        a + TWO_PI
    } else {
        a
    }
}

/// Interpolates from angle `a` to `b` along the shorter arc; `u` in [0, 1].
#[must_use]
pub fn lerp_angle(a: f32, b: f32, u: f32) -> f32 {
    wrap_angle(a + wrap_angle(b - a) * u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shorter_arc_crosses_pi_and_the_result_stays_in_range() {
        // 3.0 → −3.0 is 0.283 rad through π, not 6 rad through 0.
        let mid = lerp_angle(3.0, -3.0, 0.5);
        assert!(mid.abs() > 3.1 && mid <= PI, "{mid}");
        assert_eq!(lerp_angle(0.5, 1.5, 0.25), 0.75);
        assert_eq!(wrap_angle(PI), PI);
        assert_eq!(wrap_angle(-PI), PI);
        assert!((wrap_angle(7.0 * PI + 0.5) - (-PI + 0.5)).abs() < 1e-5);
        for (a, b, u, want) in [
            (0.1, 0.3, 0.5, 0.2),
            (PI - 0.1, -PI + 0.1, 0.5, PI),
            (-PI + 0.1, PI - 0.1, 0.25, -PI + 0.05),
            (0.0, 2.0 * PI, 0.5, 0.0),
            (1.0, 1.0, 0.7, 1.0),
        ] {
            let got = lerp_angle(a, b, u);
            let diff = (got - want).rem_euclid(TWO_PI);
            assert!(
                diff.min(TWO_PI - diff) < 1e-6,
                "lerp_angle({a}, {b}, {u}) = {got}, want {want}"
            );
            assert!(got > -PI && got <= PI, "{got} outside (−π, π]");
        }
    }
}
