//! Grounds: the built-in heightfield and triangle mesh answer rays exactly
//! alike and as brute force does, cars drive on them as on the plane where
//! the two agree, the ground's surfaces reach the wheels and the step
//! records, and a mesh's height bound is never below a hit.

mod common;

use std::sync::Arc;

use common::coordinate;
use proptest::prelude::*;
use skidpad_core::glam::DVec3;
use skidpad_core::{
    CarId, CarInput, CoreError, Ground, GroundRay, GroundSlope, Heightfield, InitialPose, Lod,
    LodSetting, SurfaceId, TriangleMesh, World, WorldConfig, preset,
};
use skidpad_fixtures::hill_world_hash;

const DT: f64 = 1.0 / 60.0;

/// A world on `ground` with one car of `preset_name` at (x, y).
fn world_on(ground: Arc<dyn Ground>, preset_name: &str, x: f64, y: f64) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(ground).unwrap();
    let id = world
        .add_car(
            &preset(preset_name).unwrap(),
            InitialPose {
                x,
                y,
                ..InitialPose::default()
            },
        )
        .unwrap();
    (world, id)
}

/// A `columns × rows` heightfield with 1 m cells from the origin, heights
/// from `height(x, y)`.
fn field(columns: usize, rows: usize, height: impl Fn(f64, f64) -> f64) -> Heightfield {
    let heights = (0..rows)
        .flat_map(|j| (0..columns).map(move |i| (i as f64, j as f64)))
        .map(|(x, y)| height(x, y))
        .collect();
    Heightfield::new(0.0, 0.0, 1.0, columns, rows, heights).unwrap()
}

#[test]
fn a_heightfield_and_its_mesh_race_with_the_same_bits() {
    // Three AI cars (one single-track) lap the built-in track over rolling
    // hills, once on the heightfield and once on the same triangles in a
    // BVH: every ray must get the same answer, so the hashes are equal.
    let on_field = hill_world_hash(false).unwrap();
    let on_mesh = hill_world_hash(true).unwrap();
    assert_eq!(on_field, on_mesh);
}

#[test]
fn a_level_heightfield_drives_like_the_plane() {
    let level = Arc::new(field(400, 40, |_, _| 0.0));
    let (mut on_field, a) = world_on(level, "rwd_sports", 20.0, 20.0);
    let (mut on_plane, b) = world_on(Arc::new(skidpad_core::FlatGround), "rwd_sports", 20.0, 20.0);
    let input = CarInput {
        throttle: 0.8,
        steer: 0.05,
        ..CarInput::default()
    };
    for world in [&mut on_field, &mut on_plane] {
        let id = world.car_ids().next().unwrap();
        world.set_input(id, input).unwrap();
        for _ in 0..300 {
            world.step(DT).unwrap();
        }
    }
    let (p, q) = (on_field.pose(a).unwrap(), on_plane.pose(b).unwrap());
    assert!(p.position.x > 60.0, "the car drove: {:?}", p.position);
    // The two rays compute the same distance by different arithmetic, so
    // the bits differ, not the motion.
    assert!(
        (p.position - q.position).length() < 1e-6,
        "{:?} vs {:?}",
        p.position,
        q.position
    );
    assert!((p.yaw - q.yaw).abs() < 1e-8);
}

#[test]
fn a_graded_heightfield_pulls_like_a_ground_slope() {
    // Downhill towards +x at 10 %: the real slope and the slope the game
    // fakes by tilting gravity must roll the car away alike.
    for lod in [Lod::Full, Lod::SingleTrack] {
        let graded = Arc::new(field(200, 40, |x, _| -0.1 * x));
        let (mut real, a) = world_on(graded, "fwd_hatchback", 30.0, 20.0);
        let (mut faked, b) = world_on(
            Arc::new(skidpad_core::FlatGround),
            "fwd_hatchback",
            30.0,
            20.0,
        );
        faked
            .set_ground_slope(
                b,
                GroundSlope {
                    grade: -0.1,
                    cross_slope: 0.0,
                },
            )
            .unwrap();
        real.set_lod(a, LodSetting::new(lod)).unwrap();
        faked.set_lod(b, LodSetting::new(lod)).unwrap();
        for _ in 0..180 {
            real.step(DT).unwrap();
            faked.step(DT).unwrap();
        }
        let (v_real, v_faked) = (
            real.channel(a, "speed").unwrap(),
            faked.channel(b, "speed").unwrap(),
        );
        assert!(
            v_faked > 2.0,
            "{lod:?}: the faked slope rolls the car: {v_faked}"
        );
        assert!(
            (v_real / v_faked - 1.0).abs() < 0.03,
            "{lod:?}: {v_real} m/s on the heightfield vs {v_faked} m/s on the tilted plane"
        );
        // On the real slope the car also went down it.
        let p = real.pose(a).unwrap();
        let ground = real.ground().cast_ray(&GroundRay {
            origin: p.position,
            direction: -DVec3::Z,
            max_distance: 5.0,
        });
        let height = p.position.z - ground.unwrap().point.z;
        assert!(
            (0.3..0.8).contains(&height),
            "{lod:?}: centre of mass {height} m above the slope"
        );
    }
}

#[test]
fn a_mesh_gives_the_wheels_its_surfaces_and_the_records_keep_what_each_step_started_with() {
    // Asphalt for x < 30, ice beyond: two quads, four triangles.
    let v = |x: f64, y: f64| DVec3::new(x, y, 0.0);
    let vertices = [
        v(0.0, 0.0),
        v(30.0, 0.0),
        v(30.0, 20.0),
        v(0.0, 20.0),
        v(200.0, 0.0),
        v(200.0, 20.0),
    ];
    let mesh = TriangleMesh::new(&vertices, &[[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]])
        .unwrap()
        .with_surfaces(vec![
            SurfaceId::DRY_ASPHALT,
            SurfaceId::DRY_ASPHALT,
            SurfaceId::ICE,
            SurfaceId::ICE,
        ])
        .unwrap();
    let (mut world, id) = world_on(Arc::new(mesh), "rwd_sports", 10.0, 10.0);
    world
        .set_input(
            id,
            CarInput {
                throttle: 0.6,
                ..CarInput::default()
            },
        )
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..400 {
        let before = world.wheel_surfaces(id).unwrap();
        world.step(DT).unwrap();
        assert_eq!(world.last_step_records()[0].surfaces, before);
        let now = world.wheel_surfaces(id).unwrap();
        if seen.last() != Some(&now) {
            seen.push(now);
        }
    }
    let (a, i) = (SurfaceId::DRY_ASPHALT, SurfaceId::ICE);
    // Front wheels cross first, then the rear ones.
    assert_eq!(seen, vec![[a, a, a, a], [i, i, a, a], [i, i, i, i]]);
    assert!(world.pose(id).unwrap().position.x > 40.0);
}

#[test]
fn a_car_off_the_ground_falls_and_a_car_cannot_start_where_there_is_none() {
    let small = Arc::new(field(20, 20, |_, _| 0.0));
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(small).unwrap();
    let err = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            InitialPose {
                x: 50.0,
                ..InitialPose::default()
            },
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("no ground under (50, 0) on the heightfield 20 × 20"),
        "{err}"
    );
    assert_eq!(world.car_count(), 0);
    let id = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            InitialPose {
                x: 10.0,
                y: 10.0,
                speed: 20.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    let p = world.pose(id).unwrap().position;
    assert!(p.x > 20.0 && p.z < -5.0, "past the edge and falling: {p:?}");
}

#[test]
fn a_ground_with_surfaces_the_table_lacks_is_refused_and_changes_nothing() {
    let with_unknown = field(4, 4, |_, _| 0.0)
        .with_cell_surfaces(vec![SurfaceId(15); 9])
        .unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    let before = world.ground().fingerprint();
    let err = world.set_ground(Arc::new(with_unknown)).unwrap_err();
    assert!(matches!(err, CoreError::UnknownSurface { .. }), "{err}");
    assert_eq!(world.ground().fingerprint(), before);
    assert_eq!(before, skidpad_core::FlatGround::plane_fingerprint());
}

#[test]
fn fingerprints_tell_grounds_apart() {
    let a = field(4, 4, |_, _| 0.0);
    let b = field(4, 4, |x, _| if x == 2.0 { 0.01 } else { 0.0 });
    let c = a
        .clone()
        .with_cell_surfaces(vec![SurfaceId::GRASS; 9])
        .unwrap();
    let prints = [
        a.fingerprint(),
        b.fingerprint(),
        c.fingerprint(),
        a.to_mesh().fingerprint(),
    ];
    for i in 0..prints.len() {
        for j in i + 1..prints.len() {
            assert_ne!(prints[i], prints[j], "{i} and {j}");
        }
    }
    assert_eq!(a.fingerprint(), field(4, 4, |_, _| -0.0).fingerprint());
}

fn ray() -> impl Strategy<Value = GroundRay> {
    (
        prop::array::uniform3(coordinate(-2.0, 18.0)),
        prop::array::uniform3(coordinate(-1.0, 1.0)),
        coordinate(0.01, 30.0),
    )
        .prop_filter_map("a direction needs a length", |(o, d, reach)| {
            let direction = DVec3::from(d).try_normalize()?;
            Some(GroundRay {
                origin: DVec3::from(o),
                direction,
                max_distance: reach,
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_hierarchy_answers_every_ray_as_brute_force_and_the_heightfield_do(
        heights in prop::collection::vec(coordinate(-3.0, 3.0), 16 * 16),
        rays in prop::collection::vec(ray(), 64),
    ) {
        let field = Heightfield::new(0.0, 0.0, 1.0, 16, 16, heights).unwrap();
        let mesh = field.to_mesh();
        for ray in &rays {
            let answer = mesh.cast_ray(ray);
            prop_assert_eq!(answer, mesh.cast_ray_brute_force(ray));
            prop_assert_eq!(answer, mesh.cast_ray_hierarchy(ray));
            prop_assert_eq!(answer, field.cast_ray(ray));
            for ground in [&mesh as &dyn Ground, &field] {
                let bound = under_the_bound(ground, ray);
                prop_assert!(bound.is_ok(), "{:?}", bound);
            }
        }
    }

    #[test]
    fn the_hierarchy_answers_a_triangle_soup_as_brute_force_does(
        corners in prop::collection::vec(prop::array::uniform3(coordinate(-2.0, 18.0)), 3 * 60),
        rays in prop::collection::vec(ray(), 64),
    ) {
        let vertices: Vec<DVec3> = corners.into_iter().map(DVec3::from).collect();
        let triangles: Vec<[u32; 3]> = (0..60)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .filter(|&[a, b, c]| {
                let (a, b, c) = (vertices[a as usize], vertices[b as usize], vertices[c as usize]);
                (b - a).cross(c - a).length() > 1e-3
            })
            .collect();
        prop_assume!(!triangles.is_empty());
        let mesh = TriangleMesh::new(&vertices, &triangles).unwrap();
        prop_assert!(mesh.depth() > 1 || triangles.len() <= 4);
        for ray in &rays {
            prop_assert_eq!(mesh.cast_ray(ray), mesh.cast_ray_brute_force(ray));
            prop_assert_eq!(mesh.cast_ray_hierarchy(ray), mesh.cast_ray_brute_force(ray));
        }
    }
}

/// Checks a ground's height bound over the x–y box of a ray's forward
/// half against its answer (held to brute force's elsewhere): a hit ahead of the origin is never
/// above it (bodies skip their rays on that promise). Ok(true) when there
/// was such a hit and a bound to hold it to.
fn under_the_bound(ground: &dyn Ground, ray: &GroundRay) -> Result<bool, String> {
    let Some(hit) = ground.cast_ray(ray).filter(|h| h.distance >= 0.0) else {
        return Ok(false);
    };
    let end = ray.at(ray.max_distance);
    let (min, max) = (ray.origin.min(end), ray.origin.max(end));
    let Some(top) = ground.highest_within(min.truncate(), max.truncate()) else {
        return Ok(false);
    };
    if hit.point.z <= top + 1e-9 {
        Ok(true)
    } else {
        Err(format!(
            "{ray:?} hits at {} above the bound {top}",
            hit.point
        ))
    }
}

/// A deterministic stream of numbers in [0, 1) (xorshift), so the rays
/// below are the same on every run and target.
struct Rays(u64);

impl Rays {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

#[test]
fn the_track_surfaces_answer_the_rays_of_struts_and_bodies_as_brute_force_does() {
    // The rays a car casts on a track: struts (short, nearly vertical,
    // from a little above the road, some from below it), body corners
    // (a few metres, any direction), long and horizontal rays (which the
    // mesh leaves to its hierarchy), and rays through the sections' own
    // vertices and edges, where neighbouring triangles tie.
    let mut rng = Rays(0x5eed_cafe_f00d_d00d);
    for name in skidpad_core::track_names() {
        let track = skidpad_core::Track::builtin(name).unwrap();
        let mesh = track.ground().unwrap();
        let mut rays = Vec::new();
        for k in 0..1500 {
            let (centre, direction) = track.point_at(rng.between(0.0, track.length()));
            let side = direction.perp() * rng.between(-25.0, 25.0);
            let xy = centre + side;
            let ground = mesh
                .cast_ray(&GroundRay {
                    origin: DVec3::new(xy.x, xy.y, 500.0),
                    direction: DVec3::NEG_Z,
                    max_distance: 1000.0,
                })
                .map_or(0.0, |h| h.point.z);
            let tilt = DVec3::new(rng.between(-0.3, 0.3), rng.between(-0.3, 0.3), -1.0);
            let (direction, reach, height) = match k % 4 {
                0 | 1 => (
                    tilt.normalize(),
                    rng.between(0.3, 1.0),
                    rng.between(-0.2, 0.8),
                ),
                2 => {
                    let d = DVec3::new(
                        rng.between(-1.0, 1.0),
                        rng.between(-1.0, 1.0),
                        rng.between(-1.0, 0.2),
                    );
                    (d.normalize(), rng.between(1.0, 4.0), rng.between(0.0, 1.5))
                }
                _ => (
                    DVec3::new(1.0, rng.between(-0.1, 0.1), 0.0).normalize(),
                    rng.between(5.0, 60.0),
                    0.5,
                ),
            };
            rays.push(GroundRay {
                origin: DVec3::new(xy.x, xy.y, ground + height),
                direction,
                max_distance: reach,
            });
        }
        // Down the sections' vertices and edges: where the road meets the
        // kerb and the kerb the grass, exactly at a track point.
        for k in 0..200 {
            let (centre, direction) = track.point_at(track.length() * f64::from(k) / 200.0);
            for offset in [0.0, track.width() / 2.0, -track.width() / 2.0] {
                let xy = centre + direction.perp() * offset;
                rays.push(GroundRay {
                    origin: DVec3::new(xy.x, xy.y, 40.0),
                    direction: DVec3::NEG_Z,
                    max_distance: 60.0,
                });
                rays.push(GroundRay {
                    origin: DVec3::new(xy.x, xy.y, 3.0),
                    direction: DVec3::NEG_Z,
                    max_distance: 0.9,
                });
            }
        }
        rays.push(GroundRay {
            origin: DVec3::new(f64::NAN, 0.0, 1.0),
            direction: DVec3::NEG_Z,
            max_distance: 1.0,
        });
        rays.push(GroundRay {
            origin: DVec3::new(0.0, 0.0, 1.0),
            direction: DVec3::new(f64::NAN, 0.0, -1.0),
            max_distance: 1.0,
        });
        let (mut hits, mut bounded) = (0, 0);
        for ray in &rays {
            let answer = mesh.cast_ray(ray);
            assert_eq!(answer, mesh.cast_ray_brute_force(ray), "{name}: {ray:?}");
            hits += usize::from(answer.is_some());
            bounded +=
                usize::from(under_the_bound(&mesh, ray).unwrap_or_else(|e| panic!("{name}: {e}")));
        }
        assert!(
            bounded > rays.len() / 3,
            "{name}: {bounded} hits checked against the bound"
        );
        assert!(
            hits > rays.len() / 2,
            "{name}: the rays meet the surface ({hits} of {})",
            rays.len()
        );
    }
}

#[test]
fn bad_meshes_are_refused_with_reasons() {
    let v = [DVec3::ZERO, DVec3::X, DVec3::Y];
    let err = |r: skidpad_core::Result<TriangleMesh>| r.unwrap_err().to_string();
    assert!(err(TriangleMesh::new(&v, &[])).contains("needs 1 to"));
    assert!(err(TriangleMesh::new(&v, &[[0, 1, 3]])).contains("beyond the 3 given"));
    assert!(err(TriangleMesh::new(&v, &[[0, 1, 1]])).contains("degenerate"));
    let nan = [DVec3::ZERO, DVec3::X, DVec3::new(0.0, f64::NAN, 0.0)];
    assert!(err(TriangleMesh::new(&nan, &[[0, 1, 2]])).contains("vertex 2"));
    let ok = TriangleMesh::new(&v, &[[0, 1, 2]]).unwrap();
    assert!(err(ok.with_surfaces(vec![])).contains("1 triangles need 1 surfaces"));
}

/// A track's mesh without its shortcuts: no height bound, so every body
/// ray is cast, and no hinted strut cast.
#[derive(Debug)]
struct Unbounded(TriangleMesh);

impl Ground for Unbounded {
    fn cast_ray(&self, ray: &GroundRay) -> Option<skidpad_core::GroundHit> {
        self.0.cast_ray(ray)
    }

    fn fingerprint(&self) -> [u8; 32] {
        self.0.fingerprint()
    }

    fn max_surface_id(&self) -> Option<SurfaceId> {
        self.0.max_surface_id()
    }

    fn describe(&self) -> String {
        self.0.describe()
    }
}

#[test]
fn skipping_the_rays_of_bodies_above_the_ground_changes_no_bit() {
    // A packed field on each track's own surface and two cars sent off
    // it, bodies hitting kerbs, walls and each other: with the mesh's shortcuts (height bounds that
    // skip most corner rays, hinted strut casts) and without them (every
    // ray searched), the same world bits every step.
    for name in skidpad_core::track_names() {
        let track = Arc::new(skidpad_core::Track::builtin(name).unwrap());
        let race = |ground: Arc<dyn Ground>| {
            let mut world = World::new(WorldConfig::default()).unwrap();
            world.set_ground(ground).unwrap();
            let layout = skidpad_core::race::GridLayout {
                row_spacing: 5.5,
                column_spacing: 2.6,
                columns: 3,
                speed: 14.0,
                ..skidpad_core::race::GridLayout::default()
            };
            for slot in 0..12 {
                let name = ["rwd_sports", "fwd_hatchback"][slot % 2];
                let pose = skidpad_core::race::grid_pose(&track, slot, &layout);
                let id = world.add_car(&preset(name).unwrap(), pose).unwrap();
                world.set_driver(id, Some(track.clone())).unwrap();
            }
            // The AI keeps within the track limits, so two undriven cars
            // are sent across the road at speed into the kerbs, run-off
            // and barrier beside it.
            for k in 0..2 {
                let (at, along) = track.point_at(60.0 + 40.0 * f64::from(k));
                let across = skidpad_core::glam::DVec2::new(-along.y, along.x);
                let pose = skidpad_core::InitialPose {
                    x: at.x,
                    y: at.y,
                    yaw: libm::atan2(across.y, across.x),
                    speed: 20.0,
                };
                world.add_car(&preset("rwd_sports").unwrap(), pose).unwrap();
            }
            world
        };
        let mut bounded = race(Arc::new(track.ground().unwrap()));
        let mut unbounded = race(Arc::new(Unbounded(track.ground().unwrap())));
        let mut ground_contacts = 0;
        for step in 0..900 {
            bounded.step(DT).unwrap();
            unbounded.step(DT).unwrap();
            assert_eq!(
                bounded.world_hash(),
                unbounded.world_hash(),
                "{name}: step {step}"
            );
            ground_contacts += bounded
                .contacts()
                .iter()
                .filter(|c| c.second.is_none())
                .count();
        }
        println!("{name}: {ground_contacts} body-ground contacts");
        assert!(ground_contacts > 0, "{name}: the bodies touched the ground");
    }
}
