//! The automatic box's throttle-dependent schedule
//! (`GearboxDefinition::light_throttle`): the shift points move linearly
//! with the pedal from the light-throttle points (closed) to the
//! gearbox's own (wide open), so a light foot shifts up early, a lifted
//! foot shifts up and a floored one kicks down; a schedule that could
//! hunt at any throttle is refused.

use skidpad_core::{
    CarDefinition, CarId, CarInput, InitialPose, LightThrottleShifts, World, WorldConfig, preset,
};

const DT: f64 = 1.0 / 120.0;

/// The rear-drive sports car (automatic, up at 7200 rpm and down at 3800
/// wide open) with light-throttle points of 3000 and 1500 rpm.
fn cruising_box() -> CarDefinition {
    let mut def = preset("rwd_sports").unwrap();
    def.gearbox.light_throttle = Some(LightThrottleShifts {
        upshift_rpm: 3000.0,
        downshift_rpm: 1500.0,
    });
    def
}

fn at_rest(def: &CarDefinition) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world.add_car(def, InitialPose::default()).unwrap();
    (world, id)
}

fn pedal(throttle: f64) -> CarInput {
    CarInput {
        throttle,
        ..CarInput::default()
    }
}

/// Steps until the gear leaves `gear` (at most `seconds`); returns the
/// gearbox input speed of the last step in it.
fn rpm_at_shift(world: &mut World, id: CarId, gear: f64, seconds: f64) -> Option<f64> {
    let mut last = world.channel(id, "gearbox_rpm").unwrap();
    for _ in 0..(seconds / DT).round() as usize {
        world.step(DT).unwrap();
        if world.channel(id, "gear").unwrap() != gear {
            return Some(last);
        }
        last = world.channel(id, "gearbox_rpm").unwrap();
    }
    None
}

#[test]
fn a_light_throttle_shifts_up_at_the_interpolated_point() {
    // At 20 % pedal the upshift point is 3000 + 0.2 × (7200 − 3000). The
    // box reads the slower of the wheels' and the road's speed, so it
    // shifts a little past the point by the driven wheels' (under 3 %).
    let expected = 3840.0;
    let (mut world, id) = at_rest(&cruising_box());
    world.set_input(id, pedal(0.2)).unwrap();
    let rpm = rpm_at_shift(&mut world, id, 1.0, 20.0).expect("no upshift within 20 s");
    assert!(
        rpm >= expected && rpm < expected * 1.03,
        "shifted up at {rpm} rpm, against {expected}"
    );

    // Without the light-throttle points the same pedal holds first gear
    // well past that speed (toward 7200 rpm).
    let (mut world, id) = at_rest(&preset("rwd_sports").unwrap());
    world.set_input(id, pedal(0.2)).unwrap();
    while world.channel(id, "gearbox_rpm").unwrap() < 4500.0 {
        world.step(DT).unwrap();
        assert_eq!(world.channel(id, "gear").unwrap(), 1.0);
    }
}

#[test]
fn lifting_off_shifts_up_and_flooring_it_kicks_down() {
    let (mut world, id) = at_rest(&cruising_box());
    // Wide open the box holds first gear to 7200 rpm: accelerate to 4000.
    world.set_input(id, pedal(1.0)).unwrap();
    while world.channel(id, "gearbox_rpm").unwrap() < 4000.0 {
        world.step(DT).unwrap();
        assert_eq!(world.channel(id, "gear").unwrap(), 1.0);
    }
    // Lifted, the upshift point falls to 3000 rpm: second gear at once.
    world.set_input(id, pedal(0.0)).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.channel(id, "gear").unwrap(), 2.0);
    // In second the gearbox turns about 4000 × 2.2 / 3.2 = 2750 rpm (more
    // while the rear wheels still spin from the launch), below the
    // wide-open downshift point of 3800: floored, it kicks down.
    let rpm = world.channel(id, "gearbox_rpm").unwrap();
    assert!(rpm > 2600.0 && rpm < 3500.0, "{rpm} rpm in second");
    world.set_input(id, pedal(1.0)).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.channel(id, "gear").unwrap(), 1.0);
}

#[test]
fn points_that_could_hunt_or_lie_above_the_full_throttle_points_are_refused() {
    let cases = [
        // Just after the 1 → 2 upshift the engine turns 3000 × 2.2 / 3.2
        // = 2063 rpm, below this downshift point.
        (3000.0, 2100.0, "would hunt"),
        (7300.0, 1500.0, "upshift_rpm"),
        (3000.0, 3900.0, "downshift_rpm"),
        (3000.0, 500.0, "idle_rpm"),
        (f64::NAN, 1500.0, "upshift_rpm"),
    ];
    for (upshift_rpm, downshift_rpm, expected) in cases {
        let mut def = preset("rwd_sports").unwrap();
        def.gearbox.light_throttle = Some(LightThrottleShifts {
            upshift_rpm,
            downshift_rpm,
        });
        let err = def.validate().unwrap_err().to_string();
        assert!(
            err.contains("light_throttle") && err.contains(expected),
            "{upshift_rpm}/{downshift_rpm}: {err}"
        );
    }
    cruising_box().validate().unwrap();
}

#[test]
fn the_points_travel_in_the_definition_and_are_omitted_when_absent() {
    let def = cruising_box();
    let json = serde_json::to_string(&def).unwrap();
    assert!(json.contains("\"light_throttle\":{\"upshift_rpm\":3000.0"));
    let back: CarDefinition = serde_json::from_str(&json).unwrap();
    assert_eq!(back, def);
    let plain = serde_json::to_string(&preset("rwd_sports").unwrap()).unwrap();
    assert!(!plain.contains("light_throttle"), "{plain}");
}
