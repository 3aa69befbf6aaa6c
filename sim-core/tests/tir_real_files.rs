//! `.tir` import of real files nobody here wrote: Project Chrono's six
//! PAC2002 and MF-Tyre 5.0 property files (`tests/data/tir/`, provenance
//! in its README). Each imports, its scaling factors and sign conventions
//! folded in so that the imported tire's peaks and stiffnesses equal the
//! Magic Formula's from the file's own coefficients, every key left out
//! comes back as a warning, and a car drives on it.

use skidpad_core::{
    CarInput, InitialPose, Lod, LodSetting, TireParameters, World, WorldConfig, parse_tir, preset,
    tir_keys_read,
};

const FILES: [(&str, &str); 6] = [
    (
        "Sedan_Pac02Tire",
        include_str!("data/tir/Sedan_Pac02Tire.tir"),
    ),
    ("mf_185_80R14", include_str!("data/tir/mf_185_80R14.tir")),
    (
        "335_65R22_5_G275MSA_40psi",
        include_str!("data/tir/335_65R22_5_G275MSA_40psi.tir"),
    ),
    (
        "HMMWV_Pac02Tire",
        include_str!("data/tir/HMMWV_Pac02Tire.tir"),
    ),
    (
        "Generic_Pac02Tire",
        include_str!("data/tir/Generic_Pac02Tire.tir"),
    ),
    ("suv_Pac02Tire", include_str!("data/tir/suv_Pac02Tire.tir")),
];

/// The number written for `key` in the raw text (first occurrence), read
/// here without the importer: the test's own view of the file. Scaling
/// factors a file leaves out are 1.
fn raw(text: &str, key: &str) -> f64 {
    text.lines()
        .filter_map(|line| line.split(['$', '!']).next())
        .filter_map(|line| line.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
        .map(|(_, v)| v.trim().parse::<f64>().expect("a number"))
        .unwrap_or_else(|| {
            assert!(key.starts_with('L'), "{key} missing");
            1.0
        })
}

/// Every key written in the raw text.
fn raw_keys(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.split(['$', '!']).next())
        .filter_map(|line| line.split_once('='))
        .map(|(k, _)| k.trim().to_ascii_uppercase())
        .collect()
}

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: imported {got}, file's formula {want}"
    );
}

#[test]
fn every_real_file_imports_with_the_magic_formulas_peaks_and_stiffnesses() {
    for (name, text) in FILES {
        let import = parse_tir(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = &import.parameters;
        let r = |key: &str| raw(text, key);
        // Fz0' = FNOMIN·LFZO: every curve's load change is taken from it.
        let fz0 = r("FNOMIN") * r("LFZO");
        close(&format!("{name} nominal load"), t.nominal_load, fz0);
        for ratio in [0.5, 1.0, 1.5] {
            let fz = ratio * fz0;
            let dfz = (fz - fz0) / fz0;
            let what = |q: &str| format!("{name} {q} at {ratio}×Fz0'");
            // Peak Fx = |μx|·Fz, μx = (PDX1 + PDX2·dfz)·LMUX.
            let mu_x = (r("PDX1") + r("PDX2") * dfz) * r("LMUX");
            close(&what("peak Fx"), t.peak_fx(fz), mu_x.abs() * fz);
            // Peak Fy = |μy|·Fz, μy = (PDY1 + PDY2·dfz)·LMUY (camber 0).
            let mu_y = (r("PDY1") + r("PDY2") * dfz) * r("LMUY");
            close(&what("peak Fy"), t.peak_fy(fz), mu_y.abs() * fz);
            // Kx = Fz·(PKX1 + PKX2·dfz)·exp(PKX3·dfz)·LKX.
            let k_x = fz * (r("PKX1") + r("PKX2") * dfz) * libm::exp(r("PKX3") * dfz) * r("LKX");
            close(&what("slip stiffness"), t.slip_stiffness(fz), k_x);
            // |Ky| = |PKY1|·Fz0'·sin(2·atan(Fz/(PKY2·Fz0')))·LKY.
            let k_y = r("PKY1").abs()
                * fz0
                * libm::sin(2.0 * libm::atan(fz / (r("PKY2") * fz0)))
                * r("LKY");
            close(&what("cornering stiffness"), t.cornering_stiffness(fz), k_y);
            // This core's convention: a positive lateral slip pushes left,
            // whatever the file's axis system.
            assert!(t.lateral(fz, 0.03) > 0.0, "{}", what("Fy sign"));
            assert!(t.longitudinal(fz, 0.03).0 > 0.0, "{}", what("Fx sign"));
        }
    }
}

#[test]
fn every_key_left_out_is_a_warning_and_the_curves_stay_close_to_the_files() {
    // Keys the tire is built from, and the units; all others must be
    // named in a warning.
    let units = ["LENGTH", "FORCE", "ANGLE", "MASS", "TIME", "PRESSURE"];
    let folded: Vec<&str> = tir_keys_read().chain(units).collect();
    for (name, text) in FILES {
        let import = parse_tir(text).unwrap();
        for key in raw_keys(text) {
            if folded.contains(&key.as_str()) {
                continue;
            }
            let needle = format!("] {key} =");
            assert!(
                import.warnings.iter().any(|w| w.contains(&needle)),
                "{name}: {key} is neither used nor warned about"
            );
        }
        assert_eq!(import.gaps.len(), 3);
    }
}

#[test]
fn the_files_own_quirks_are_read() {
    let (_, sedan) = FILES[0];
    let import = parse_tir(sedan).unwrap();
    // LFZO 0.81 scales the nominal load, and with it the cornering
    // stiffness at a given load.
    assert!((import.parameters.nominal_load - 4850.0 * 0.81).abs() < 1e-9);
    // The [SHAPE] table is counted and skipped.
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.contains("[SHAPE] table {radial width} (4 rows)")),
        "{:?}",
        import.warnings
    );
    // Relaxation lengths and trail at nominal load: PTX1·R0,
    // PTY1·sin(2·atan(1/PTY2))·R0·LFZO and QDZ1·R0.
    let r0 = 0.344;
    let t = &import.parameters;
    assert!((t.relaxation_x - 2.3657 * r0).abs() < 1e-9);
    let sigma_y = 2.1439 * libm::sin(2.0 * libm::atan(1.0 / 1.9829)) * r0 * 0.81;
    assert!((t.relaxation_y - sigma_y).abs() < 1e-9);
    assert!((t.pneumatic_trail - 0.093509 * r0).abs() < 1e-9);
    // MF-Tyre 5.0 in W-axis form: PDY1 is negative, the friction is its
    // magnitude, and the header-less [SHAPE] table is a table.
    let (_, truck) = FILES[2];
    let import = parse_tir(truck).unwrap();
    assert!((import.parameters.pdy1 - 0.70977).abs() < 1e-12);
    assert!((import.parameters.pdy2 + 0.14161).abs() < 1e-12);
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.contains("[SHAPE] table (10 rows)"))
    );
    // It gives no relaxation lengths (PTX1 = PTY1 = 0): the defaults
    // apply, and the warning says so.
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.contains("PTX1 = 0") && w.contains("default"))
    );
}

#[test]
fn formats_this_importer_does_not_read_are_refused_by_name() {
    let (_, sedan) = FILES[0];
    for (from, to, expected) in [
        (
            "PROPERTY_FILE_FORMAT     ='PAC2002'",
            "PROPERTY_FILE_FORMAT     ='PAC94'",
            "`PAC94` is not read",
        ),
        (
            "PROPERTY_FILE_FORMAT     ='PAC2002'",
            "PROPERTY_FILE_FORMAT     ='PAC2002'\r\nFITTYP = 61",
            "MF-Tyre 6.x",
        ),
        (
            "FORCE                    ='newton'",
            "FORCE ='kilonewton'",
            "FORCE unit",
        ),
    ] {
        assert!(sedan.contains(from), "{from}");
        let err = parse_tir(&sedan.replace(from, to)).unwrap_err().to_string();
        assert!(err.contains(expected), "{err}");
    }
}

/// The hatchback preset on one imported tire at both axles.
fn hatchback_on(tire: &TireParameters) -> skidpad_core::CarDefinition {
    let mut car = preset("fwd_hatchback").unwrap();
    car.tires.front = tire.clone();
    car.tires.rear = tire.clone();
    car
}

#[test]
fn a_car_drives_on_every_imported_tire() {
    const DT: f64 = 1.0 / 60.0;
    for (name, text) in FILES {
        let tire = parse_tir(text).unwrap().parameters;
        let mut world = World::new(WorldConfig::default()).unwrap();
        let id = world
            .add_car(&hatchback_on(&tire), InitialPose::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Parked, it holds still.
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        assert!(world.pose(id).unwrap().speed < 1e-3, "{name} crept");
        // Full throttle pulls away.
        let throttle = CarInput {
            throttle: 1.0,
            ..CarInput::default()
        };
        world.set_input(id, throttle).unwrap();
        for _ in 0..(8 * 60) {
            world.step(DT).unwrap();
        }
        let speed = world.pose(id).unwrap().speed;
        assert!(speed > 15.0, "{name}: {speed} m/s after 8 s");
        // A steady turn at part throttle corners without spinning.
        world
            .set_input(
                id,
                CarInput {
                    throttle: 0.3,
                    steer: 0.15,
                    ..CarInput::default()
                },
            )
            .unwrap();
        for _ in 0..(4 * 60) {
            world.step(DT).unwrap();
        }
        let yaw_rate = world.channel(id, "yaw_rate").unwrap();
        let lateral = world.channel(id, "ay").unwrap();
        let pose = world.pose(id).unwrap();
        assert!(
            yaw_rate.abs() > 0.1 && lateral.abs() > 2.0 && lateral.abs() < 12.0,
            "{name}: yaw rate {yaw_rate} rad/s, lateral {lateral} m/s²"
        );
        assert!(pose.speed > 5.0, "{name}: {} m/s in the turn", pose.speed);
    }
}

/// PAC2002's pure-slip curve at zero camber, written out from the file's
/// raw coefficients: F(x) = D·sin(C·atan(B·X − E·(B·X − atan(B·X)))) + SV
/// with X = x + SH, B = K/(C·D), and E capped at 1 (sign-dependent on X).
fn magic_formula(
    b: f64,
    c: f64,
    d: f64,
    e_for: impl Fn(f64) -> f64,
    sh: f64,
    sv: f64,
    x: f64,
) -> f64 {
    let big_x = x + sh;
    let e = e_for(big_x).min(1.0);
    let bx = b * big_x;
    d * libm::sin(c * libm::atan(bx - e * (bx - libm::atan(bx)))) + sv
}

#[test]
fn the_imported_curves_are_the_files_with_every_term_the_core_models() {
    for (name, text) in FILES {
        let import = parse_tir(text).unwrap();
        let t = &import.parameters;
        let r = |key: &str| raw(text, key);
        // Terms a file leaves out are 0 (scaling factors 1, as `raw` reads).
        let r0 = |key: &str| if text.contains(key) { r(key) } else { 0.0 };
        let fz0 = r("FNOMIN") * r("LFZO");
        for ratio in [0.5, 1.0, 1.5] {
            let fz = ratio * fz0;
            let dfz = (fz - fz0) / fz0;
            let at = t.at_load(fz);
            // Longitudinal, every term: C = PCX1·LCX, D = μx·Fz,
            // K = Fz·(PKX1 + PKX2·dfz)·exp(PKX3·dfz)·LKX,
            // E = (PEX1 + PEX2·dfz + PEX3·dfz²)·(1 − PEX4·sgn X)·LEX,
            // SH = (PHX1 + PHX2·dfz)·LHX, SV = Fz·(PVX1 + PVX2·dfz)·LVX·LMUX.
            let c = r("PCX1") * r("LCX");
            let d = (r("PDX1") + r("PDX2") * dfz) * r("LMUX") * fz;
            let k = fz * (r("PKX1") + r("PKX2") * dfz) * libm::exp(r("PKX3") * dfz) * r("LKX");
            let e = (r("PEX1") + r0("PEX2") * dfz + r0("PEX3") * dfz * dfz) * r("LEX");
            let sh = (r0("PHX1") + r0("PHX2") * dfz) * r("LHX");
            let sv = fz * (r0("PVX1") + r0("PVX2") * dfz) * r("LVX") * r("LMUX");
            let e_x = |x: f64| e * (1.0 - r0("PEX4") * x.signum());
            // Lateral, every term, in the file's own axes and signs:
            // C = PCY1·LCY, D = (PDY1 + PDY2·dfz)·LMUY·Fz,
            // K = PKY1·Fz0'·sin(2·atan(Fz/(PKY2·Fz0')))·LKY,
            // E = (PEY1 + PEY2·dfz)·(1 − PEY3·sgn X)·LEY,
            // SH = (PHY1 + PHY2·dfz)·LHY, SV = Fz·(PVY1 + PVY2·dfz)·LVY·LMUY,
            // read at the file's slip: −tan α where PKY1 < 0 (W axes), so
            // that the force pushes left at positive tan α in both. Every
            // file is for a left-mounted tire (or names no side), as the
            // core's definition is.
            let c_y = r("PCY1") * r("LCY");
            let d_y = (r("PDY1") + r("PDY2") * dfz) * r("LMUY") * fz;
            let k_y =
                r("PKY1") * fz0 * libm::sin(2.0 * libm::atan(fz / (r("PKY2") * fz0))) * r("LKY");
            let e_y0 = (r("PEY1") + r0("PEY2") * dfz) * r("LEY");
            let e_y = |x: f64| e_y0 * (1.0 - r0("PEY3") * x.signum());
            let sh_y = (r0("PHY1") + r0("PHY2") * dfz) * r("LHY");
            let sv_y = fz * (r0("PVY1") + r0("PVY2") * dfz) * r("LVY") * r("LMUY");
            let file_slip = r("PKY1").signum();
            for i in -200..=200 {
                let s = f64::from(i) * 0.005;
                let want_x = magic_formula(k / (c * d), c, d, e_x, sh, sv, s);
                let got_x = at.longitudinal(s).0;
                assert!(
                    (got_x - want_x).abs() <= 1e-9 * d.abs(),
                    "{name} Fx at κ {s}, {ratio}×Fz0': {got_x} vs {want_x}"
                );
                let want_y =
                    magic_formula(k_y / (c_y * d_y), c_y, d_y, e_y, sh_y, sv_y, file_slip * s);
                let got_y = at.lateral(s);
                assert!(
                    (got_y - want_y).abs() <= 1e-9 * d_y.abs(),
                    "{name} Fy at tan α {s}, {ratio}×Fz0': {got_y} vs {want_y}"
                );
            }
        }
        // Against the file's full curves, both gaps are rounding only.
        for gap in &import.gaps {
            assert!(
                gap.longitudinal_percent < 1e-6 && gap.lateral_percent < 1e-6,
                "{name}: {gap:?}"
            );
        }
    }
}

/// A file's side-dependent terms (conicity and ply steer: PHY*, PVY*,
/// PEY3) push a lone tire sideways at zero slip; the right wheels carry the
/// mirror image, so a car on such a tire runs straight in both models
/// instead of pulling to one side, while each tire still pushes.
#[test]
fn the_side_dependent_terms_cancel_across_an_axle() {
    const DT: f64 = 1.0 / 60.0;
    let (_, truck) = FILES[2];
    let import = parse_tir(truck).unwrap();
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.contains("TYRESIDE is 'UNKNOWN'")),
        "{:?}",
        import.warnings
    );
    let (_, suv) = FILES[5];
    let tire = parse_tir(suv).unwrap().parameters;
    assert!(tire.has_sided_terms());
    let fz = tire.nominal_load;
    // A lone tire at zero slip: SV plus the curve at SH, a few per cent
    // of the load; its mirror pushes the other way by exactly as much.
    let alone = tire.lateral(fz, 0.0);
    assert!(alone.abs() > 0.005 * fz, "{alone} N");
    assert_eq!(tire.mirrored().lateral(fz, 0.0), -alone);
    for lod in [Lod::Full, Lod::SingleTrack] {
        let mut world = World::new(WorldConfig::default()).unwrap();
        let id = world
            .add_car(&hatchback_on(&tire), InitialPose::default())
            .unwrap();
        world.set_lod(id, LodSetting::new(lod)).unwrap();
        let throttle = CarInput {
            throttle: 0.6,
            ..CarInput::default()
        };
        world.set_input(id, throttle).unwrap();
        for _ in 0..(8 * 60) {
            world.step(DT).unwrap();
        }
        let pose = world.pose(id).unwrap();
        // 8 s from rest, over 50 m down the x axis: a car on four
        // left-mounted tires would drift off by metres.
        assert!(pose.position.x > 50.0, "{lod:?}: {:?}", pose.position);
        assert!(
            pose.position.y.abs() < 0.05,
            "{lod:?} drifted {} m sideways",
            pose.position.y
        );
    }
}

/// PAC2002's combined-slip weighting from the file's own coefficients,
/// in the file's own axes, at load `fz`, slip ratio `kappa` and lateral
/// slip `alpha` (the file's α*; the core's tan α negated for a file in W
/// axes): returns (Gxα, Gyκ, SVyκ), with dfz = (Fz − FNOMIN·LFZO)/
/// (FNOMIN·LFZO), μy = (PDY1 + PDY2·dfz)·LMUY and
/// - Gxα = cos(Cxα·atan(Bxα·αs − Exα·(Bxα·αs − atan(Bxα·αs)))) / (the
///   same at αs = SHxα), αs = α + SHxα, Bxα = RBX1·cos(atan(RBX2·κ))·LXAL,
///   Cxα = RCX1, Exα = min(REX1 + REX2·dfz, 1), SHxα = RHX1;
/// - Gyκ the same form in κs = κ + SHyκ, Byκ = RBY1·cos(atan(RBY2·(α −
///   RBY3)))·LYKA, Cyκ = RCY1, Eyκ = min(REY1 + REY2·dfz, 1),
///   SHyκ = RHY1 + RHY2·dfz;
/// - SVyκ = μy·Fz·(RVY1 + RVY2·dfz)·cos(atan(RVY4·α))·sin(RVY5·atan(RVY6·κ))·LVYKA
///   (camber 0, so RVY3 drops out).
fn file_weighting(text: &str, fz: f64, kappa: f64, alpha: f64) -> (f64, f64, f64) {
    let r = |key: &str| raw(text, key);
    let fz0 = r("FNOMIN") * r("LFZO");
    let dfz = (fz - fz0) / fz0;
    let g = |b: f64, c: f64, e: f64, s: f64, shift: f64| {
        let at = |x: f64| {
            let bx = b * x;
            libm::cos(c * libm::atan(bx - e * (bx - libm::atan(bx))))
        };
        at(s) / at(shift)
    };
    let b_x = r("RBX1") * libm::cos(libm::atan(r("RBX2") * kappa)) * r("LXAL");
    let e_x = (r("REX1") + r("REX2") * dfz).min(1.0);
    let g_x = g(b_x, r("RCX1"), e_x, alpha + r("RHX1"), r("RHX1"));
    let b_y = r("RBY1") * libm::cos(libm::atan(r("RBY2") * (alpha - r("RBY3")))) * r("LYKA");
    let e_y = (r("REY1") + r("REY2") * dfz).min(1.0);
    let sh_y = r("RHY1") + r("RHY2") * dfz;
    let g_y = g(b_y, r("RCY1"), e_y, kappa + sh_y, sh_y);
    let mu_y = (r("PDY1") + r("PDY2") * dfz) * r("LMUY");
    let induced = mu_y
        * fz
        * (r("RVY1") + r("RVY2") * dfz)
        * libm::cos(libm::atan(r("RVY4") * alpha))
        * libm::sin(r("RVY5") * libm::atan(r("RVY6") * kappa))
        * r("LVYKA");
    (g_x, g_y, induced)
}

#[test]
fn combined_slip_is_the_files_weighting_where_the_file_gives_one() {
    let mut weighted = 0;
    for (name, text) in FILES {
        let import = parse_tir(text).unwrap();
        let t = &import.parameters;
        let Some(_) = t.combined_slip else {
            // The sedan's R* are all zero and the truck's lateral ones
            // are: without them the weighting is identically 1, so these
            // combine by the similarity method, and the import says so.
            assert!(
                import
                    .warnings
                    .iter()
                    .any(|w| w.starts_with("combined slip:")),
                "{name}"
            );
            continue;
        };
        weighted += 1;
        let lateral_sign = raw(text, "PKY1").signum();
        for ratio in [0.5, 1.0, 1.5] {
            let fz = ratio * t.nominal_load;
            let tire = t.at_load(fz);
            for (kappa, tan_alpha) in [(0.05, 0.03), (-0.1, 0.08), (0.2, -0.12), (-0.02, -0.2)] {
                let (g_x, g_y, induced) = file_weighting(text, fz, kappa, lateral_sign * tan_alpha);
                let (fx0, _) = tire.longitudinal(kappa);
                let fy0 = tire.lateral(tan_alpha);
                // The peak slips are the similarity method's: unused here.
                let (fx, fy, _) = tire.combined(kappa, tan_alpha, 1.0, 1.0);
                let what = format!("{name} at {ratio}·Fz0, κ {kappa}, tan α {tan_alpha}");
                let tolerance = 1e-9 * tire.peak_y;
                assert!(
                    (fx - g_x * fx0).abs() <= tolerance,
                    "{what}: Fx {fx} against {}",
                    g_x * fx0
                );
                assert!(
                    (fy - (g_y * fy0 + induced)).abs() <= tolerance,
                    "{what}: Fy {fy} against {}",
                    g_y * fy0 + induced
                );
                // The weighting takes grip away once the other slip is
                // well away from zero (near it, a shifted weighting may
                // pass 1 by a few per cent, as the file's does).
                assert!(tan_alpha.abs() < 0.08 || g_x < 1.0, "{what}: Gxα {g_x}");
                assert!(kappa.abs() < 0.05 || g_y < 1.0, "{what}: Gyκ {g_y}");
            }
        }
    }
    assert_eq!(weighted, 4, "the SUV, HMMWV, generic and MF 5.0 files");
}
