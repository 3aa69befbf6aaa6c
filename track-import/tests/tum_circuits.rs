//! The six real circuits of the TUM racetrack database (tests/data/tum,
//! LGPL-3.0, PROVENANCE.md there): each imports, its centre line is as
//! long as the circuit's published lap to within 0.2 %, its report holds
//! the widths the data gives, and the built-in AI laps it with every preset
//! on its generated ground.
//!
//! The AI's laps are held to finishing valid: within the default track
//! limits (the road's edge plus 1 m) and with no other fault. Before
//! simulation version 17 the kart on every circuit, and every car at Spa,
//! ran wide of them by up to 11 m (understeer that pure pursuit's long
//! look-ahead did not correct; see VALIDATION.md).

use std::sync::Arc;

use skidpad_core::race::{CarStatus, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{DriverStyle, Track, World, WorldConfig, preset, preset_names};
use skidpad_track_import::{ImportOptions, check, from_tum_csv};

/// (file, published lap length m, narrowest and widest full width m as
/// the data's README gives them).
const CIRCUITS: [(&str, f64, (f64, f64)); 6] = [
    ("Monza", 5793.0, (7.5, 12.4)),
    ("Silverstone", 5891.0, (11.3, 17.8)),
    ("Spa", 7004.0, (7.9, 16.4)),
    ("BrandsHatch", 3908.0, (7.5, 12.1)),
    ("Hockenheim", 4574.0, (7.4, 18.4)),
    ("Catalunya", 4655.0, (8.6, 17.8)),
];

fn circuit(name: &str) -> Track {
    let path = format!("{}/tests/data/tum/{name}.csv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the circuit's file");
    let definition = from_tum_csv(&text, &ImportOptions::named(name)).expect("imports");
    Track::from_definition(definition).expect("builds")
}

#[test]
fn every_circuit_is_as_long_and_as_wide_as_published() {
    for (name, published, (narrow, wide)) in CIRCUITS {
        let track = circuit(name);
        let report = check(&track).unwrap();
        let error = (track.length() - published).abs() / published;
        assert!(
            error < 0.002,
            "{name}: {:.1} m against {published} m ({:.3} %)",
            track.length(),
            100.0 * error
        );
        // The README's ranges are rounded to a decimetre.
        assert!(
            (report.width.0 - narrow).abs() < 0.06 && (report.width.1 - wide).abs() < 0.06,
            "{name}: widths {:?} against {narrow}..{wide}",
            report.width
        );
        assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
        // La Source at Spa is the tightest: under 5 m between three
        // neighbouring points of the smoothed line.
        assert!(
            report.tightest.0 > 3.0,
            "{name}: tightest {:?}",
            report.tightest
        );
        assert_eq!(report.sectors.len(), 2);
    }
}

/// Race time one lap may take, s: the slowest preset round the longest
/// circuit with margin.
const LAP_TIMEOUT: f64 = 600.0;
const DT: f64 = 1.0 / 60.0;

#[test]
fn the_ai_laps_every_circuit_with_every_preset() {
    let mut failures = Vec::new();
    for (name, _, _) in CIRCUITS {
        let track = Arc::new(circuit(name));
        let ground = Arc::new(track.ground().unwrap());
        for car in preset_names() {
            let mut world = World::new(WorldConfig::default()).unwrap();
            world.set_ground(ground.clone()).unwrap();
            let id = world
                .add_car(&preset(car).unwrap(), grid_pose(&track, 0, &track.grid()))
                .unwrap();
            let style = DriverStyle {
                backs_out: true,
                ..DriverStyle::default()
            };
            world
                .set_driver_with_style(id, Some(track.clone()), style)
                .unwrap();
            let rules = RaceRules {
                laps: Some(1),
                ..RaceRules::default()
            };
            let mut race = RaceTiming::new(track.clone(), rules, &world);
            while race.standings()[0].status == CarStatus::Running && race.time() < LAP_TIMEOUT {
                world.step(DT).unwrap();
                race.after_step(&world).unwrap();
            }
            match race.laps(id).unwrap_or_default() {
                [lap] => {
                    eprintln!("{name:12} {car:14} {:7.2} s", lap.time());
                    if !lap.faults.is_empty() {
                        failures.push(format!("{name} {car}: {:?}", lap.faults));
                    }
                }
                _ => failures.push(format!("{name} {car}: no lap in {LAP_TIMEOUT} s")),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
