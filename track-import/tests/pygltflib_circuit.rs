//! A glTF circuit written by another tool: `tests/gltf/write_scene.py`,
//! with pygltflib from PyPI, which `cargo xtask test` runs before the tests
//! (in a virtualenv with the pinned pygltflib) into the folder
//! `SKIDPAD_TEST_SCENES` names. The scene imports as a GLB and as a
//! `.gltf` beside its `.bin`, with its surfaces, its widths measured on its
//! tarmac, its start line and sectors from its nodes; AI cars race a lap
//! on its ground, and the replay, carrying track and ground, verifies on
//! its own.

use std::path::Path;
use std::sync::Arc;

use glam::DVec3;
use skidpad_core::race::{AiField, CarStatus, RaceRules, RaceTiming};
use skidpad_core::{GroundRay, GroundSource, SurfaceId, Track, World, WorldConfig};
use skidpad_fixtures::scenes::written_scenes;
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayRecorder, decode_replay, encode_replay, verify_replay,
};
use skidpad_track_import::{GltfOptions, SceneTrack, check_scene, from_gltf};

/// The stadium's published figures (write_scene.py): its centre line's
/// length, m, and the tarmac's extent either side of the line.
const LENGTH: f64 = 776.99;
const RIGHT: f64 = 4.5;
const LEFT: f64 = 5.5;

fn import(path: &Path, base_dir: Option<&Path>) -> SceneTrack {
    let bytes = std::fs::read(path).unwrap();
    let options = GltfOptions {
        base_dir: base_dir.map(Path::to_owned),
        ..GltfOptions::named("stadium")
    };
    from_gltf(&bytes, &options).unwrap()
}

#[test]
fn the_scene_imports_with_its_surfaces_widths_start_and_sectors() {
    let Some(out) = written_scenes("the glTF circuit pygltflib writes") else {
        return;
    };
    let scene = import(&out.join("stadium.glb"), None);
    // 200 sections a strip, two triangles a section: road; two kerbs;
    // grass outside (material `Grass.001`); gravel inside (mesh name).
    let strip = 400;
    let counts = &scene.counts;
    let by_surface: Vec<(&str, usize)> = counts
        .ground_triangles
        .iter()
        .map(|(name, &n)| (name.as_str(), n))
        .collect();
    assert_eq!(
        by_surface,
        [
            ("dry_asphalt", strip),
            ("grass", strip),
            ("gravel", strip),
            ("kerb", 2 * strip)
        ]
    );
    assert_eq!(counts.dropped_triangles, 0);
    // The grandstand is drawn, not driven on.
    let stand = scene
        .visuals
        .iter()
        .find(|v| v.node == "grandstand")
        .expect("the grandstand is kept for drawing");
    assert_eq!((stand.surface, stand.indices.len()), (None, 36));
    assert_eq!(stand.material, "Concrete");
    assert_eq!(counts.visual_primitives, 6);

    let definition = &scene.definition;
    assert_eq!(definition.centre_line.len(), 64);
    // The root node moves the circuit 100 m along x and 50 m down.
    let first = definition.centre_line[0];
    assert!(
        (first[0] - 0.0).abs() < 1e-4 && (first[1] - -60.0).abs() < 1e-4,
        "first control point {first:?}"
    );
    for (i, [right, left]) in definition.widths.as_ref().unwrap().iter().enumerate() {
        // Chords of the 200 sections cut the bends' tarmac by up to a few
        // centimetres.
        assert!(
            (right - RIGHT).abs() < 0.06 && (left - LEFT).abs() < 0.06,
            "point {i}: measured [{right}, {left}]"
        );
    }
    let track = Track::from_definition(definition.clone()).unwrap();
    assert!(
        (track.length() - LENGTH).abs() / LENGTH < 0.002,
        "length {}",
        track.length()
    );
    assert!(
        (definition.start - 30.0).abs() < 0.5,
        "start {}",
        definition.start
    );
    let sectors = definition.sectors.as_ref().unwrap();
    let expected = [LENGTH / 3.0 - 30.0, 2.0 * LENGTH / 3.0 - 30.0];
    assert!(
        sectors
            .iter()
            .zip(expected)
            .all(|(s, e)| (s - e).abs() < 1.5),
        "sectors {sectors:?}, expected about {expected:?}"
    );
    let elevation = definition.elevation.as_ref().unwrap();
    let (lo, hi) = elevation
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &z| {
            (l.min(z), h.max(z))
        });
    assert!(
        lo > -53.01 && lo < -52.9 && hi < -46.99 && hi > -47.1,
        "{lo}..{hi}"
    );

    // Across the line on the first straight (driving along +x, so left is
    // +y): the surfaces the materials and the mesh name gave.
    let ground = GroundSource::Mesh(scene.ground.clone()).build().unwrap();
    let surface_at = |y: f64| {
        let ray = GroundRay {
            origin: DVec3::new(20.0, y, 0.0),
            direction: DVec3::NEG_Z,
            max_distance: 100.0,
        };
        ground.cast_ray(&ray).and_then(|hit| hit.surface)
    };
    let across: Vec<Option<SurfaceId>> = [-80.0, -70.0, -65.0, -62.0, -56.0, -54.0, -50.0, 0.0]
        .into_iter()
        .map(surface_at)
        .collect();
    assert_eq!(
        across,
        [
            None,
            Some(SurfaceId::GRASS),
            Some(SurfaceId::KERB),
            Some(SurfaceId::DRY_ASPHALT),
            Some(SurfaceId::DRY_ASPHALT),
            Some(SurfaceId::KERB),
            Some(SurfaceId::GRAVEL),
            None
        ]
    );

    let report = check_scene(&scene).unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.ground.1, 5 * strip);
    assert!((report.width.0 - 10.0).abs() < 0.1, "{:?}", report.width);

    // The same scene as JSON with its buffer in a file beside it.
    let split = import(&out.join("stadium.gltf"), Some(&out));
    assert_eq!(split.definition, scene.definition);
    assert_eq!(split.ground, scene.ground);
}

#[test]
fn ai_cars_race_a_lap_on_the_scene_and_its_replay_verifies_alone() {
    let Some(out) = written_scenes("the glTF circuit pygltflib writes") else {
        return;
    };
    let scene = import(&out.join("stadium.glb"), None);
    let track = Arc::new(Track::from_definition(scene.definition.clone()).unwrap());
    let source = GroundSource::Mesh(scene.ground.clone());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(source.build().unwrap()).unwrap();
    AiField::new(3)
        .on_track_surface(Some(10.0))
        .line_up(&mut world, &track)
        .unwrap();
    let rules = RaceRules {
        laps: Some(1),
        ..RaceRules::default()
    };
    let mut race = RaceTiming::new(track.clone(), rules, &world);
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            track: Some(track.clone()),
            ground: Some(source),
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    let dt = 1.0 / 60.0;
    let mut on = [0_u64; 8];
    while race
        .standings()
        .iter()
        .any(|s| s.status == CarStatus::Running)
        && race.time() < 180.0
    {
        recorder.step(&mut world, dt).unwrap();
        race.after_step(&world).unwrap();
        for record in world.last_step_records() {
            for surface in record.surfaces {
                on[usize::from(surface.0).min(7)] += 1;
            }
        }
    }
    for standing in race.standings() {
        assert!(
            matches!(standing.status, CarStatus::Finished(_)),
            "every car finishes a lap: {standing:?}"
        );
    }
    // Most wheel-steps on the tarmac, and the surfaces came from the scene.
    let total: u64 = on.iter().sum();
    assert!(
        on[usize::from(SurfaceId::DRY_ASPHALT.0)] * 10 > total * 9,
        "wheel-steps by surface {on:?}"
    );

    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    let replay = decode_replay(&bytes).unwrap();
    assert_eq!(
        replay.header.track().unwrap().map(|t| t.fingerprint()),
        Some(track.fingerprint())
    );
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid() && report.desyncs == 0, "{report:?}");
}
