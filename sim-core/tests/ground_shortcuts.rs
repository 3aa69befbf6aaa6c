//! The mesh's shortcuts change no answer:
//!
//! - the hinted ray cast (`Ground::cast_ray_hinted`) answers every ray as
//!   the brute-force cast does, whatever the hint: empty, carried from the
//!   ray before (as a wheel's is), taken from a ray straight down at the
//!   same spot (which makes the mesh's shortcut apply), or from elsewhere;
//! - `Ground::lies_below` and `Ground::lies_under_hull` (by the
//!   triangles' planes) never say a box is clear of ground that the
//!   brute-force cast finds in it.

mod common;

use common::coordinate;
use proptest::prelude::*;
use skidpad_core::glam::DVec3;
use skidpad_core::{Ground, GroundHint, GroundRay, TriangleMesh};

/// Rays over a 16 m square: short nearly vertical struts and long rays in
/// any direction.
fn ray() -> impl Strategy<Value = GroundRay> {
    (
        prop::array::uniform3(coordinate(-2.0, 18.0)),
        prop::array::uniform3(coordinate(-1.0, 1.0)),
        coordinate(0.01, 30.0),
        any::<bool>(),
    )
        .prop_filter_map("a direction needs a length", |(o, d, reach, strut)| {
            let direction = if strut {
                DVec3::new(0.1 * d[0], 0.1 * d[1], -1.0).normalize()
            } else {
                DVec3::from(d).try_normalize()?
            };
            Some(GroundRay {
                origin: DVec3::from(o),
                direction,
                max_distance: if strut { reach / 30.0 } else { reach },
            })
        })
}

/// The hint a ray straight down through `ray`'s origin leaves.
fn hint_below(mesh: &TriangleMesh, ray: &GroundRay) -> GroundHint {
    let mut hint = GroundHint::EMPTY;
    mesh.cast_ray_hinted(
        &GroundRay {
            origin: ray.origin + DVec3::Z * 50.0,
            direction: DVec3::NEG_Z,
            max_distance: 100.0,
        },
        &mut hint,
    );
    hint
}

/// Casts every ray with an empty hint, the previous ray's, the hint from
/// straight below and the first ray's, and holds each answer to brute
/// force's. Returns how many rays found a hint below (so the shortcut had
/// its chance).
fn check(mesh: &TriangleMesh, rays: &[GroundRay]) -> Result<usize, TestCaseError> {
    let mut carried = GroundHint::EMPTY;
    let first = rays
        .first()
        .map_or(GroundHint::EMPTY, |r| hint_below(mesh, r));
    let mut below_found = 0;
    for ray in rays {
        let expected = mesh.cast_ray_brute_force(ray);
        let below = hint_below(mesh, ray);
        below_found += usize::from(below != GroundHint::EMPTY);
        for mut hint in [GroundHint::EMPTY, carried, below, first] {
            prop_assert_eq!(mesh.cast_ray_hinted(ray, &mut hint), expected, "{:?}", ray);
        }
        mesh.cast_ray_hinted(ray, &mut carried);
    }
    Ok(below_found)
}

/// A 16 × 16 heightfield as a mesh, with `extra` triangles over it: each a bridge or
/// a fold that covers triangles of the field, so those are not alone.
fn field_with(heights: Vec<f64>, extra: &[[[f64; 3]; 3]]) -> TriangleMesh {
    let mut vertices = Vec::new();
    for j in 0..16u32 {
        for i in 0..16u32 {
            vertices.push(DVec3::new(
                f64::from(i),
                f64::from(j),
                heights[(j * 16 + i) as usize],
            ));
        }
    }
    let mut triangles = Vec::new();
    for j in 0..15u32 {
        for i in 0..15u32 {
            let k = j * 16 + i;
            triangles.push([k, k + 1, k + 17]);
            triangles.push([k, k + 17, k + 16]);
        }
    }
    for corners in extra {
        let base = vertices.len() as u32;
        vertices.extend(corners.iter().map(|&c| DVec3::from(c)));
        let (a, b, c) = (
            vertices[base as usize],
            vertices[base as usize + 1],
            vertices[base as usize + 2],
        );
        if (b - a).cross(c - a).length() > 1e-3 {
            triangles.push([base, base + 1, base + 2]);
        }
    }
    TriangleMesh::new(&vertices, &triangles).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_heightfield_mesh_answers_hinted_rays_as_brute_force_does(
        heights in prop::collection::vec(coordinate(-3.0, 3.0), 16 * 16),
        rays in prop::collection::vec(ray(), 64),
    ) {
        let mesh = field_with(heights, &[]);
        let below = check(&mesh, &rays)?;
        prop_assert!(below > 0);
    }

    #[test]
    fn a_field_under_bridges_and_folds_answers_hinted_rays_as_brute_force_does(
        heights in prop::collection::vec(coordinate(-1.0, 1.0), 16 * 16),
        extra in prop::collection::vec(prop::array::uniform3(prop::array::uniform3(coordinate(-2.0, 18.0))), 1..12),
        rays in prop::collection::vec(ray(), 64),
    ) {
        let mesh = field_with(heights, &extra);
        check(&mesh, &rays)?;
    }
}

#[test]
fn the_track_surfaces_answer_hinted_strut_rays_as_brute_force_does() {
    for name in skidpad_core::track_names() {
        let track = skidpad_core::Track::builtin(name).unwrap();
        let mesh = track.ground().unwrap();
        // A wheel's path: struts along the road, across it and onto the
        // kerbs and the grass, tilted as a rolling body tilts them, with
        // vertical rays down the sections' own vertices and edges.
        let mut rays = Vec::new();
        for k in 0..3000 {
            let d = track.length() * f64::from(k) / 3000.0;
            let (centre, heading) = track.point_at(d);
            let across = (f64::from(k % 97) / 96.0 - 0.5) * (track.width() + 8.0);
            let xy = centre + heading.perp() * across;
            let ground = mesh
                .cast_ray(&GroundRay {
                    origin: DVec3::new(xy.x, xy.y, 500.0),
                    direction: DVec3::NEG_Z,
                    max_distance: 1000.0,
                })
                .map_or(0.0, |h| h.point.z);
            let tilt = f64::from(k % 13) / 13.0 - 0.5;
            rays.push(GroundRay {
                origin: DVec3::new(xy.x, xy.y, ground + 0.3 + 0.2 * tilt),
                direction: DVec3::new(0.2 * tilt, -0.1 * tilt, -1.0).normalize(),
                max_distance: 0.6,
            });
            if k % 10 == 0 {
                let edge = centre + heading.perp() * (track.width() / 2.0);
                rays.push(GroundRay {
                    origin: DVec3::new(edge.x, edge.y, ground + 0.3),
                    direction: DVec3::NEG_Z,
                    max_distance: 0.6,
                });
            }
        }
        let below = check(&mesh, &rays).unwrap();
        assert!(
            below > rays.len() * 9 / 10,
            "{name}: {below} of {}",
            rays.len()
        );
    }
}

#[test]
fn a_hint_under_a_bridge_does_not_hide_the_bridge() {
    // A level field and a deck 0.3 m above part of it.
    let heights = vec![0.0; 16 * 16];
    let mesh = field_with(
        heights,
        &[[[2.0, 2.0, 0.3], [12.0, 2.0, 0.3], [2.0, 12.0, 0.3]]],
    );
    let field_only = GroundRay {
        origin: DVec3::new(4.2, 4.3, 0.05),
        direction: DVec3::NEG_Z,
        max_distance: 0.1,
    };
    let mut hint = GroundHint::EMPTY;
    let field = mesh.cast_ray_hinted(&field_only, &mut hint).unwrap();
    assert_eq!(field.point.z, 0.0, "the hint is the field's triangle");
    // A strut from above the deck, reaching through it to the field: the
    // deck is nearer, hint or not.
    let strut = GroundRay {
        origin: DVec3::new(4.2, 4.3, 0.5),
        direction: DVec3::NEG_Z,
        max_distance: 0.6,
    };
    let answer = mesh.cast_ray_hinted(&strut, &mut hint).unwrap();
    assert_eq!(Some(answer), mesh.cast_ray_brute_force(&strut));
    assert!((answer.point.z - 0.3).abs() < 1e-12, "{answer:?}");
    // Away from the deck the field's triangles are alone, and the
    // shortcut's answer is brute force's too.
    let open = GroundRay {
        origin: DVec3::new(14.2, 13.3, 0.5),
        direction: DVec3::new(0.05, 0.02, -1.0).normalize(),
        max_distance: 0.6,
    };
    let mut hint = GroundHint::EMPTY;
    for _ in 0..3 {
        assert_eq!(
            mesh.cast_ray_hinted(&open, &mut hint),
            mesh.cast_ray_brute_force(&open)
        );
    }
}

#[test]
fn the_track_surfaces_lie_below_a_box_only_where_no_ray_finds_ground_in_it() {
    let mut said_below = 0;
    let mut cases = 0;
    for name in skidpad_core::track_names() {
        let track = skidpad_core::Track::builtin(name).unwrap();
        let mesh = track.ground().unwrap();
        let highest = |x: f64, y: f64| {
            mesh.cast_ray_brute_force(&GroundRay {
                origin: DVec3::new(x, y, 500.0),
                direction: DVec3::NEG_Z,
                max_distance: 1000.0,
            })
            .map(|h| h.point.z)
        };
        for k in 0..400 {
            let d = track.length() * f64::from(k) / 400.0;
            let (centre, heading) = track.point_at(d);
            let across = (f64::from(k % 31) / 30.0 - 0.5) * (track.width() + 10.0);
            let xy = centre + heading.perp() * across;
            let Some(ground) = highest(xy.x, xy.y) else {
                continue;
            };
            // Boxes the size of a car's body and of a corner's ray, at
            // heights from below the road to a body's clearance above it.
            let half = if k % 2 == 0 {
                skidpad_core::glam::DVec2::new(2.4, 1.1)
            } else {
                skidpad_core::glam::DVec2::new(1.2, 0.5)
            };
            let (min, max) = (xy - half, xy + half);
            let z = ground + f64::from(k % 7) * 0.1 - 0.15;
            cases += 1;
            if !mesh.lies_below(min, max, z) {
                continue;
            }
            said_below += 1;
            for i in 0..=12 {
                for j in 0..=12 {
                    let (x, y) = (
                        min.x + (max.x - min.x) * f64::from(i) / 12.0,
                        min.y + (max.y - min.y) * f64::from(j) / 12.0,
                    );
                    if let Some(top) = highest(x, y) {
                        assert!(
                            top < z,
                            "{name}: ground at {top} under ({x}, {y}) in a box said below {z}"
                        );
                    }
                }
            }
        }
    }
    // The planes prove most boxes a clearance above the road clear.
    assert!(
        said_below * 3 > cases,
        "{said_below} of {cases} boxes proven clear"
    );
}

#[test]
fn the_track_surfaces_lie_under_a_body_only_where_no_corner_ray_finds_ground() {
    let (mut said_clear, mut cases) = (0, 0);
    for name in skidpad_core::track_names() {
        let track = skidpad_core::Track::builtin(name).unwrap();
        let mesh = track.ground().unwrap();
        for k in 0..600 {
            let d = track.length() * f64::from(k) / 600.0;
            let (centre, heading) = track.point_at(d);
            let across = (f64::from(k % 29) / 28.0 - 0.5) * (track.width() + 6.0);
            let xy = centre + heading.perp() * across;
            let Some(ground) = mesh.cast_ray_brute_force(&GroundRay {
                origin: DVec3::new(xy.x, xy.y, 500.0),
                direction: DVec3::NEG_Z,
                max_distance: 1000.0,
            }) else {
                continue;
            };
            // A car's body box riding the surface's tilt, rolled and
            // pitched a little more, at heights from sunk to clear.
            let yaw = libm::atan2(heading.y, heading.x) + f64::from(k % 5) * 0.3;
            let tilt = skidpad_core::glam::DQuat::from_rotation_arc(DVec3::Z, ground.normal);
            let extra = skidpad_core::glam::DQuat::from_euler(
                skidpad_core::glam::EulerRot::XYZ,
                (f64::from(k % 7) - 3.0) * 0.02,
                (f64::from(k % 11) - 5.0) * 0.02,
                0.0,
            );
            let rotation = tilt * skidpad_core::glam::DQuat::from_rotation_z(yaw) * extra;
            let half = DVec3::new(2.2, 0.9, 0.45);
            let lift = 0.45 + f64::from(k % 9) * 0.06 - 0.2;
            let centre = ground.point + ground.normal * lift;
            let corners: Vec<DVec3> = (0..8)
                .map(|c| {
                    let sign = |bit: u32| if c & bit == 0 { -1.0 } else { 1.0 };
                    centre + rotation * (half * DVec3::new(sign(1), sign(2), sign(4)))
                })
                .collect();
            cases += 1;
            if !mesh.lies_under_hull(&corners, 1e-3) {
                continue;
            }
            said_clear += 1;
            for corner in &corners {
                let offset = *corner - centre;
                let ray = GroundRay {
                    origin: centre,
                    direction: offset.normalize(),
                    max_distance: offset.length(),
                };
                let hit = mesh.cast_ray_brute_force(&ray);
                assert!(
                    hit.is_none_or(|h| h.distance < 0.0),
                    "{name}: a body said clear meets the ground at {hit:?}"
                );
            }
        }
    }
    // Many bodies here are sunk or straddle a barrier; the rest clear.
    assert!(
        said_clear * 5 > cases,
        "{said_clear} of {cases} bodies proven clear"
    );
}
