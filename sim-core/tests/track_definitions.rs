//! Track definitions: the built-in files read as before, a constant width
//! and the same widths point by point are one track with one fingerprint,
//! the start line and sectors cut the lap where the definition says, the
//! road's edges follow each side's width, and bad definitions are refused
//! naming the element.

use std::sync::Arc;

use skidpad_core::race::{LapFault, LapTimer, RaceRules};
use skidpad_core::{Track, TrackDefinition, track_names};

fn brandwood() -> TrackDefinition {
    Track::builtin("brandwood").unwrap().definition().clone()
}

#[test]
fn a_definition_round_trips_through_its_json_with_its_fingerprint() {
    for name in track_names() {
        let track = Track::builtin(name).unwrap();
        let again = Track::from_json(&track.definition().to_json()).unwrap();
        assert_eq!(again, track, "{name}");
        assert_eq!(again.fingerprint(), track.fingerprint());
    }
    let fingerprints: Vec<_> = track_names()
        .iter()
        .map(|n| Track::builtin(n).unwrap().fingerprint())
        .collect();
    assert_ne!(fingerprints[0], fingerprints[1]);
}

#[test]
fn a_constant_width_and_the_same_widths_point_by_point_are_one_track() {
    let constant = brandwood();
    let width = constant.width.unwrap();
    let per_point = TrackDefinition {
        width: None,
        widths: Some(vec![[width / 2.0, width / 2.0]; constant.centre_line.len()]),
        ..constant.clone()
    };
    let (a, b) = (
        Track::from_definition(constant).unwrap(),
        Track::from_definition(per_point).unwrap(),
    );
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.points(), b.points());
    assert_eq!(a.ground_source(), b.ground_source());
    // The name is for people: renaming keeps the fingerprint; moving a
    // point changes it.
    let renamed = TrackDefinition {
        name: "elsewhere".into(),
        ..brandwood()
    };
    assert_eq!(
        Track::from_definition(renamed).unwrap().fingerprint(),
        a.fingerprint()
    );
    let mut moved = brandwood();
    moved.centre_line[3][0] += 0.001;
    assert_ne!(
        Track::from_definition(moved).unwrap().fingerprint(),
        a.fingerprint()
    );
}

#[test]
fn the_start_line_and_sectors_are_where_the_definition_puts_them() {
    let plain = Track::from_definition(brandwood()).unwrap();
    let start = 523.4;
    let moved = Track::from_definition(TrackDefinition {
        start,
        sectors: Some(vec![300.0, 900.0, 1500.0]),
        ..brandwood()
    })
    .unwrap();
    // The line is at the polyline point nearest to `start`, and the lap is
    // as long as before.
    let nearest = plain
        .distances()
        .iter()
        .copied()
        .min_by(|a, b| (a - start).abs().total_cmp(&(b - start).abs()))
        .unwrap();
    let (line, _) = moved.point_at(0.0);
    assert!((plain.locate(line).distance - nearest).abs() < 1e-6);
    assert!((moved.length() - plain.length()).abs() < 1e-6);
    assert_eq!(moved.sectors(), &[300.0, 900.0, 1500.0]);
    let l = plain.length();
    assert_eq!(plain.sectors(), &[l / 3.0, 2.0 * l / 3.0]);
}

#[test]
fn the_edges_follow_each_side_and_time_the_limits() {
    let n = brandwood().centre_line.len();
    // 2 m to the right, 8 m to the left everywhere.
    let lopsided = Arc::new(
        Track::from_definition(TrackDefinition {
            width: None,
            widths: Some(vec![[2.0, 8.0]; n]),
            ..brandwood()
        })
        .unwrap(),
    );
    assert_eq!(lopsided.width(), 10.0);
    let (p, along) = lopsided.point_at(800.0);
    let left = along.perp();
    let edges = lopsided.edges(&lopsided.locate(p));
    assert!((edges.left - 8.0).abs() < 1e-9 && (edges.right - 2.0).abs() < 1e-9);
    assert!((edges.middle() - 3.0).abs() < 1e-9);
    // 5 m left is on the road, 5 m right is 2 m beyond the margin.
    for (offset, fault) in [(5.0, false), (-5.0, true)] {
        let mut timer = LapTimer::new(lopsided.clone(), RaceRules::default());
        let (q, _) = lopsided.point_at(lopsided.length() - 10.0);
        timer.observe(0.0, q);
        timer.observe(1.0, p + left * offset);
        let (end, _) = lopsided.point_at(1.0);
        for k in 2..200 {
            let (q, _) = lopsided.point_at(f64::from(k) * lopsided.length() / 199.0);
            timer.observe(f64::from(k), q);
        }
        timer.observe(300.0, end);
        let lap = &timer.laps()[0];
        let left_track = lap
            .faults
            .iter()
            .any(|f| matches!(f, LapFault::LeftTrack { limit, .. } if (limit - 3.0).abs() < 1e-9));
        assert_eq!(left_track, fault, "{offset}: {:?}", lap.faults);
    }
}

#[test]
fn bad_definitions_are_refused_naming_the_element() {
    let refused = |def: TrackDefinition| Track::from_definition(def).unwrap_err().to_string();
    let n = brandwood().centre_line.len();
    let mut widths = vec![[4.0, 4.0]; n];
    widths[7] = [0.3, 0.5];
    let cases = [
        (
            TrackDefinition {
                sectors: Some(vec![900.0, 300.0]),
                ..brandwood()
            },
            "sectors[1]",
        ),
        (
            TrackDefinition {
                sectors: Some(vec![300.0]),
                ..brandwood()
            },
            "2..=64 boundaries",
        ),
        (
            TrackDefinition {
                sectors: Some(vec![300.0, 1e6]),
                ..brandwood()
            },
            "not before the line",
        ),
        (
            TrackDefinition {
                widths: Some(widths),
                ..brandwood()
            },
            "widths[7]",
        ),
        (
            TrackDefinition {
                widths: Some(vec![[4.0, 4.0]; 3]),
                ..brandwood()
            },
            "one [right, left] per centre_line point",
        ),
        (
            TrackDefinition {
                width: None,
                ..brandwood()
            },
            "needs a width or widths",
        ),
        (
            TrackDefinition {
                start: f64::NAN,
                ..brandwood()
            },
            "start must be",
        ),
        (
            TrackDefinition {
                start: 1e6,
                ..brandwood()
            },
            "beyond the lap",
        ),
    ];
    for (def, expected) in cases {
        let message = refused(def);
        assert!(message.contains(expected), "{message}");
    }
    let mut nan = brandwood();
    nan.centre_line[4] = [f64::NAN, 0.0];
    assert!(refused(nan).contains("centre_line[4]"));
    assert!(
        Track::from_json(
            r#"{"name":"x","width":9,"centre_line":[[0,0],[1,0],[1,1],[0,1],[0,2]],"kerbs":1}"#
        )
        .unwrap_err()
        .to_string()
        .contains("kerbs")
    );
}

#[test]
fn surface_stretches_change_the_generated_ground_where_they_say() {
    use skidpad_core::{
        Ground, GroundRay, KERB_WIDTH, Side, Strip, SurfaceId, SurfaceSpan, glam::DVec3,
    };
    let plain = Track::from_definition(brandwood()).unwrap();
    let length = plain.length();
    let span = |from: f64, to: f64, side, strip, surface: &str| SurfaceSpan {
        from,
        to,
        side,
        strip,
        surface: surface.into(),
    };
    let track = Track::from_definition(TrackDefinition {
        surfaces: vec![
            span(100.0, 300.0, Side::Left, Strip::Runoff, "gravel"),
            // Across the line: no kerb on the right for 40 m.
            span(length - 20.0, 20.0, Side::Right, Strip::Kerb, "dry_asphalt"),
        ],
        ..brandwood()
    })
    .unwrap();
    assert_ne!(track.fingerprint(), plain.fingerprint());
    let ground = track.ground().unwrap();
    let surface_at = |distance: f64, left: f64| {
        let (p, along) = track.point_at(distance);
        let q = p + along.perp() * left;
        let ray = GroundRay {
            origin: DVec3::new(q.x, q.y, 50.0),
            direction: DVec3::NEG_Z,
            max_distance: 100.0,
        };
        ground.cast_ray(&ray).and_then(|hit| hit.surface)
    };
    let edge = track.width() / 2.0;
    let runoff = edge + KERB_WIDTH + 3.0;
    let kerb = edge + KERB_WIDTH / 2.0;
    assert_eq!(surface_at(200.0, runoff), Some(SurfaceId::GRAVEL));
    assert_eq!(surface_at(400.0, runoff), Some(SurfaceId::GRASS));
    assert_eq!(surface_at(200.0, -runoff), Some(SurfaceId::GRASS));
    assert_eq!(surface_at(10.0, -kerb), Some(SurfaceId::DRY_ASPHALT));
    assert_eq!(
        surface_at(length - 10.0, -kerb),
        Some(SurfaceId::DRY_ASPHALT)
    );
    assert_eq!(surface_at(60.0, -kerb), Some(SurfaceId::KERB));
    assert_eq!(surface_at(10.0, kerb), Some(SurfaceId::KERB));

    let refused = |spans: Vec<SurfaceSpan>| {
        Track::from_definition(TrackDefinition {
            surfaces: spans,
            ..brandwood()
        })
        .unwrap_err()
        .to_string()
    };
    assert!(
        refused(vec![span(1.0, 2.0, Side::Both, Strip::Kerb, "lava")])
            .contains("unknown surface \"lava\"")
    );
    assert!(
        refused(vec![span(1.0, 1e6, Side::Both, Strip::Kerb, "sand")]).contains("beyond the lap")
    );
    assert!(refused(vec![span(5.0, 5.0, Side::Both, Strip::Kerb, "sand")]).contains("surfaces[0]"));
}

/// Feeds `timer` the centre line at each progress value (m from the
/// line), one observation per 1/60 s.
fn drive(timer: &mut LapTimer, progress: &[f64]) -> Vec<skidpad_core::race::Lap> {
    let track = timer.track().clone();
    let mut laps = Vec::new();
    for (k, &p) in progress.iter().enumerate() {
        laps.extend(timer.observe(k as f64 / 60.0, track.point_at(p).0));
    }
    laps
}

fn at_speed(from: f64, speed: f64, seconds: f64) -> Vec<f64> {
    let steps = (seconds * 60.0) as usize;
    (0..=steps)
        .map(|k| from + speed * k as f64 / 60.0)
        .collect()
}

#[test]
fn sector_times_add_up_to_the_lap_and_a_reverse_over_a_boundary_is_not_a_split() {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let length = track.length();
    let cuts = track.sectors().to_vec();
    let mut timer = LapTimer::new(track.clone(), RaceRules::default());
    let speed = 40.0;
    let laps = drive(&mut timer, &at_speed(-20.0, speed, 2.2 * length / speed));
    assert_eq!(laps.len(), 2, "{laps:?}");
    for lap in &laps {
        assert_eq!(lap.sectors.len(), cuts.len() + 1, "{lap:?}");
        let total: f64 = lap.sectors.iter().sum();
        assert!((total - lap.time()).abs() < 1e-9, "{lap:?}");
    }
    // Flying lap at constant speed: each sector takes its length.
    let bounds: Vec<f64> = [0.0]
        .iter()
        .chain(&cuts)
        .chain([length].iter())
        .copied()
        .collect();
    for (k, time) in laps[1].sectors.iter().enumerate() {
        assert!(
            (time - (bounds[k + 1] - bounds[k]) / speed).abs() < 1e-6,
            "{k}: {time}"
        );
    }
    // The standing lap's first sector holds the run to the line.
    assert!((laps[0].sectors[0] - (cuts[0] + 20.0) / speed).abs() < 1e-6);

    // Backing over the first boundary and driving on: one split there.
    let mut timer = LapTimer::new(track.clone(), RaceRules::default());
    let mut progress = at_speed(-20.0, speed, (cuts[0] + 40.0) / speed);
    let turn = *progress.last().unwrap();
    progress.extend((1..=120).map(|k| turn - f64::from(k) * 0.5));
    let back = *progress.last().unwrap();
    progress.extend(at_speed(back, speed, (length - back + 30.0) / speed));
    let laps = drive(&mut timer, &progress);
    assert_eq!(laps.len(), 1);
    assert_eq!(laps[0].sectors.len(), cuts.len() + 1, "{laps:?}");
    let total: f64 = laps[0].sectors.iter().sum();
    assert!((total - laps[0].time()).abs() < 1e-9);
}
