//! The tire's curves against the Magic Formula's definitions, and its
//! validation.

use super::at_load::OddCurves;
use super::*;

fn tire() -> TireParameters {
    TireParameters {
        nominal_load: 4000.0,
        pcx1: 1.65,
        pdx1: 1.1,
        pdx2: -0.08,
        pex1: 0.3,
        pex2: 0.0,
        pex3: 0.0,
        pex4: 0.0,
        phx1: 0.0,
        phx2: 0.0,
        pvx1: 0.0,
        pvx2: 0.0,
        pkx1: 22.0,
        pkx2: 0.0,
        pkx3: 0.2,
        pcy1: 1.3,
        pdy1: 1.05,
        pdy2: -0.1,
        pey1: -0.5,
        pey2: 0.0,
        pey3: 0.0,
        phy1: 0.0,
        phy2: 0.0,
        pvy1: 0.0,
        pvy2: 0.0,
        pky1: 18.0,
        pky2: 1.8,
        relaxation_x: 0.15,
        relaxation_y: 0.35,
        pneumatic_trail: 0.03,
        combined_slip: None,
    }
}

#[test]
fn initial_slopes_equal_the_stiffnesses() {
    let t = tire();
    let (_, slope) = t.longitudinal(4000.0, 0.0);
    assert!((slope - t.slip_stiffness(4000.0)).abs() < 1e-6 * slope);
    let h = 1e-7;
    let fy_slope = (t.lateral(4000.0, h) - t.lateral(4000.0, -h)) / (2.0 * h);
    let k = t.cornering_stiffness(4000.0);
    assert!((fy_slope - k).abs() < 1e-4 * k, "{fy_slope} vs {k}");
}

#[test]
fn analytic_slope_matches_finite_difference_everywhere() {
    let t = tire();
    for i in -40..=40 {
        let kappa = f64::from(i) * 0.025;
        let h = 1e-7;
        let fd =
            (t.longitudinal(5000.0, kappa + h).0 - t.longitudinal(5000.0, kappa - h).0) / (2.0 * h);
        let (_, slope) = t.longitudinal(5000.0, kappa);
        assert!(
            (fd - slope).abs() < 1e-3 * (1.0 + slope.abs()),
            "κ={kappa}: {fd} vs {slope}"
        );
    }
}

/// A tire with every longitudinal term: load- and sign-dependent
/// curvature and both shifts.
fn shifted_tire() -> TireParameters {
    TireParameters {
        pex2: 0.25,
        pex3: 0.07,
        pex4: -0.2,
        phx1: 0.0012,
        phx2: 0.0004,
        pvx1: -0.01,
        pvx2: 0.02,
        ..tire()
    }
}

#[test]
fn shifts_and_asymmetric_curvature_keep_the_slope_exact() {
    let t = shifted_tire();
    t.validate("tire").unwrap();
    for fz in [2500.0, 4000.0, 6500.0] {
        for i in -40..=40 {
            let kappa = f64::from(i) * 0.025 + 0.001;
            let h = 1e-7;
            let fd =
                (t.longitudinal(fz, kappa + h).0 - t.longitudinal(fz, kappa - h).0) / (2.0 * h);
            let (_, slope) = t.longitudinal(fz, kappa);
            assert!(
                (fd - slope).abs() < 1e-3 * (1.0 + slope.abs()),
                "{fz} N, κ={kappa}: {fd} vs {slope}"
            );
        }
        // At zero slip the force is the shifted curve's: SV plus the
        // curve at SH.
        let dfz = (fz - 4000.0) / 4000.0;
        let (sh, sv) = (0.0012 + 0.0004 * dfz, fz * (-0.01 + 0.02 * dfz));
        let unshifted = TireParameters {
            phx1: 0.0,
            phx2: 0.0,
            pvx1: 0.0,
            pvx2: 0.0,
            ..t.clone()
        };
        let want = unshifted.longitudinal(fz, sh).0 + sv;
        assert!((t.longitudinal(fz, 0.0).0 - want).abs() < 1e-9 * fz);
        // The driving peak sits SH before the unshifted curve's.
        assert!((t.peak_slip(fz) - (unshifted.peak_slip(fz) - sh)).abs() < 1e-12);
    }
    // Braking and driving differ by the curvature's asymmetry.
    let drive = t.longitudinal(4000.0, 0.3 - 0.0012).0 + 40.0;
    let brake = -(t.longitudinal(4000.0, -0.3 - 0.0012).0 + 40.0);
    assert!((drive - brake).abs() > 1.0, "{drive} vs {brake}");
}

/// `shifted_tire` with the lateral curve's side-dependent terms too.
fn sided_tire() -> TireParameters {
    TireParameters {
        pey2: -0.05,
        pey3: 0.3,
        phy1: 0.004,
        phy2: -0.002,
        pvy1: 0.03,
        pvy2: -0.01,
        ..shifted_tire()
    }
}

#[test]
fn the_lateral_curve_takes_its_shifts_and_the_right_wheel_its_mirror() {
    let t = sided_tire();
    t.validate("tire").unwrap();
    assert!(t.has_sided_terms() && !shifted_tire().has_sided_terms());
    let right = t.mirrored();
    for fz in [2500.0, 4000.0, 6500.0] {
        let dfz = (fz - 4000.0) / 4000.0;
        // F(tan α) = D·sin(C·atan(B·Y − E·(B·Y − atan(B·Y)))) + SV with
        // Y = tan α + SH, E = (PEY1 + PEY2·dfz)·(1 − PEY3·sgn Y):
        // the symmetric tire's curve (E fixed) moved by the shifts.
        let (sh, sv) = (0.004 - 0.002 * dfz, fz * (0.03 - 0.01 * dfz));
        let e0 = -0.5 - 0.05 * dfz;
        for i in -40..=40 {
            let slip = f64::from(i) * 0.02 + 0.0007;
            let y = slip + sh;
            let e = e0 * (1.0 - 0.3 * y.signum());
            let plain = TireParameters {
                pey1: e,
                pey2: 0.0,
                ..tire()
            };
            let want = plain.lateral(fz, y) + sv;
            let got = t.lateral(fz, slip);
            assert!(
                (got - want).abs() < 1e-9 * fz,
                "{fz} N, {slip}: {got} vs {want}"
            );
            // The mirror image, exactly.
            assert_eq!(right.lateral(fz, -slip), -got);
        }
        // Combined slip: the longitudinal force is the same on both
        // sides and the lateral one mirrored, to the bit.
        let peaks = PeakSlips::new(t.peak_slip(fz), t.peak_lateral_slip(fz));
        assert_eq!(
            t.peak_lateral_slip(fz).to_bits(),
            right.peak_lateral_slip(fz).to_bits()
        );
        let (left_at, right_at) = (t.at_load(fz), right.at_load(fz));
        for kappa in [-0.4, -0.03, 0.0, 0.02, 0.15] {
            for alpha in [-0.2, -0.01, 0.003, 0.08] {
                let a = left_at.combined_at(kappa, alpha, &peaks);
                let b = right_at.combined_at(kappa, -alpha, &peaks);
                assert_eq!((a.0, a.2), (b.0, b.2), "κ {kappa}, tan α {alpha}");
                assert_eq!(a.1, -b.1, "κ {kappa}, tan α {alpha}");
            }
        }
    }
}

#[test]
fn combined_slip_keeps_each_sides_curve_and_the_shifts() {
    let t = sided_tire();
    let fz = 4000.0;
    let at = t.at_load(fz);
    let peaks = PeakSlips::new(t.peak_slip(fz), t.peak_lateral_slip(fz));
    let (sh_x, sh_y) = (0.0012, 0.004);
    // Along each axis of the shifted slips the combined forces are the
    // pure curves: braking takes the braking curvature (PEX4).
    for kappa in [-0.6, -0.1, -0.02, 0.03, 0.2] {
        let (fx, fy, slope) = at.combined_at(kappa, -sh_y, &peaks);
        let (pure, pure_slope) = at.longitudinal(kappa);
        assert!((fx - pure).abs() < 1e-9 * fz, "κ {kappa}: {fx} vs {pure}");
        assert!((slope - pure_slope).abs() < 1e-6 * at.stiffness_x);
        // The lateral curve's own shift alone, fading with σx.
        let sx = (kappa + sh_x) / peaks.kappa;
        assert!((fy - fz * 0.03 / (1.0 + sx * sx)).abs() < 1e-9 * fz);
    }
    for alpha in [-0.3, -0.05, 0.01, 0.1] {
        let (_, fy, _) = at.combined_at(-sh_x, alpha, &peaks);
        assert!((fy - at.lateral(alpha)).abs() < 1e-9 * fz, "tan α {alpha}");
    }
    // The slope stays the derivative off the axes.
    for (kappa, alpha) in [(0.05, 0.04), (-0.2, 0.1), (0.3, -0.07)] {
        let h = 1e-7;
        let fd = (at.combined_at(kappa + h, alpha, &peaks).0
            - at.combined_at(kappa - h, alpha, &peaks).0)
            / (2.0 * h);
        let (_, _, slope) = at.combined_at(kappa, alpha, &peaks);
        assert!(
            (fd - slope).abs() < 1e-4 * at.stiffness_x,
            "{fd} vs {slope}"
        );
    }
}

#[test]
fn the_symmetric_curves_give_the_full_ones_bits_for_a_tire_without_terms() {
    let mut tires = vec![tire()];
    for name in crate::preset_names() {
        let car = crate::preset(name).unwrap();
        tires.push(car.tires.front.clone());
        tires.push(car.tires.rear.clone());
    }
    for t in tires {
        assert!(!t.has_full_curves());
        let peaks = PeakSlips::new(t.peak_slip(4000.0), t.peak_lateral_slip(4000.0));
        for fz in [0.0, 900.0, 3000.0, 4000.0, 7500.0] {
            let (full, symmetric) = (t.at_load(fz), t.symmetric_at_load(fz));
            assert_eq!(
                (full.peak_x.to_bits(), full.peak_y.to_bits()),
                (symmetric.peak_x.to_bits(), symmetric.peak_y.to_bits())
            );
            for i in -30..=30 {
                for j in -12..=12 {
                    let (kappa, alpha) = (f64::from(i) * 0.02, f64::from(j) * 0.03);
                    let a = full.combined_at(kappa, alpha, &peaks);
                    let b = symmetric.combined_at(kappa, alpha, &peaks);
                    assert_eq!(
                        [a.0.to_bits(), a.1.to_bits(), a.2.to_bits()],
                        [b.0.to_bits(), b.1.to_bits(), b.2.to_bits()],
                        "{fz} N, κ {kappa}, tan α {alpha}"
                    );
                }
            }
            // The sign of a zero slip's zero force is kept too.
            let negative_zero = (full.longitudinal(-0.0).0, symmetric.longitudinal_at(-0.0).0);
            assert_eq!(negative_zero.0.to_bits(), negative_zero.1.to_bits());
        }
    }
    assert!(shifted_tire().has_full_curves());
}

#[test]
fn terms_left_at_zero_leave_the_definition_as_it_was() {
    let json = serde_json::to_string(&tire()).unwrap();
    for key in [
        "pex2", "pex3", "pex4", "phx1", "phx2", "pvx1", "pvx2", "pey2", "pey3", "phy1", "phy2",
        "pvy1", "pvy2",
    ] {
        assert!(!json.contains(key), "{key} written: {json}");
    }
    let with_terms = serde_json::to_string(&shifted_tire()).unwrap();
    let back: TireParameters = serde_json::from_str(&with_terms).unwrap();
    assert_eq!(back, shifted_tire());
    let mut wild = shifted_tire();
    wild.phx1 = 0.2;
    assert!(wild.validate("tire").is_err());
}

#[test]
fn peak_slip_is_where_the_force_peaks() {
    let t = tire();
    let kappa = t.peak_slip(4000.0);
    let at = |k: f64| t.longitudinal(4000.0, k).0;
    assert!(kappa > 0.02 && kappa < 0.3, "{kappa}");
    assert!(at(kappa) >= at(kappa * 0.97) && at(kappa) >= at(kappa * 1.03));
    assert!(t.longitudinal(4000.0, kappa).1.abs() < 1e-6 * t.slip_stiffness(4000.0));
}

#[test]
fn combined_slip_gives_pure_curves_back_and_stays_in_the_ellipse() {
    let t = tire();
    let fz = 4000.0;
    let a = t.at_load(fz);
    let (kp, ap) = (t.peak_slip(fz), t.peak_lateral_slip(fz));
    for k in [-0.3, -0.05, 0.02, 0.1, 0.5] {
        let (fx, fy, slope) = a.combined(k, 0.0, kp, ap);
        let (pure, pure_slope) = a.longitudinal(k);
        assert!((fx - pure).abs() < 1e-9 * a.peak_x && fy == 0.0);
        assert!((slope - pure_slope).abs() < 1e-6 * a.stiffness_x);
    }
    assert!((a.combined(0.0, 0.07, kp, ap).1 - a.lateral(0.07)).abs() < 1e-9 * a.peak_y);
    for (k, al) in [(0.05, 0.05), (0.2, 0.1), (-0.5, -0.3), (1.0, 0.02)] {
        let (fx, fy, _) = a.combined(k, al, kp, ap);
        let (ux, uy) = (fx / a.peak_x, fy / a.peak_y);
        let usage = ux * ux + uy * uy;
        assert!(usage <= 1.0 + 1e-9, "{k} {al}: {usage}");
        // Combined slip takes force from each direction.
        assert!(fx.abs() < a.longitudinal(k).0.abs() || fy.abs() < a.lateral(al).abs());
    }
    // The slope matches a finite difference.
    let h = 1e-7;
    let fd =
        (a.combined(0.08 + h, 0.04, kp, ap).0 - a.combined(0.08 - h, 0.04, kp, ap).0) / (2.0 * h);
    let (_, _, slope) = a.combined(0.08, 0.04, kp, ap);
    assert!((fd - slope).abs() < 1e-4 * a.stiffness_x, "{fd} vs {slope}");
}

#[test]
fn peak_is_mu_times_load_and_falls_with_load() {
    let t = tire();
    let peak = (0..2000)
        .map(|i| t.longitudinal(4000.0, f64::from(i) * 0.0005).0)
        .fold(0.0, f64::max);
    assert!((peak - 1.1 * 4000.0).abs() < 1.0, "{peak}");
    assert!(t.peak_fy(8000.0) / 8000.0 < t.peak_fy(4000.0) / 4000.0);
    assert_eq!(t.longitudinal(0.0, 0.2), (0.0, 0.0));
    assert!(t.lateral(4000.0, 0.05) > 0.0 && t.lateral(4000.0, -0.05) < 0.0);
}
