//! A torque converter in place of the clutch
//! (`CarDefinition::torque_converter`): at launch the engine runs at the
//! stall speed and the wheels get the engine's torque multiplied; in gear
//! at idle the car creeps, and the brake holds it; out of range is refused.

use skidpad_core::{
    CarDefinition, CarId, CarInput, InitialPose, TorqueConverterDefinition, World, WorldConfig,
    preset,
};

const DT: f64 = 1.0 / 120.0;

/// The rear-drive car with a converter stalling at 2500 rpm, multiplying
/// 2.2 times at stall and coupling from 0.85.
fn automatic() -> CarDefinition {
    let mut def = preset("rwd_sports").unwrap();
    def.torque_converter = Some(TorqueConverterDefinition {
        stall_rpm: 2500.0,
        stall_torque_ratio: 2.2,
        coupling_speed_ratio: 0.85,
    });
    def
}

fn at_rest(def: &CarDefinition) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world.add_car(def, InitialPose::default()).unwrap();
    (world, id)
}

fn drive(world: &mut World, id: CarId, input: CarInput, seconds: f64) {
    world.set_input(id, input).unwrap();
    for _ in 0..(seconds / DT).round() as usize {
        world.step(DT).unwrap();
    }
}

#[test]
fn at_launch_the_engine_runs_at_stall_and_the_torque_is_multiplied() {
    let (mut world, id) = at_rest(&automatic());
    let full = CarInput {
        throttle: 1.0,
        gear: 1.0,
        ..CarInput::default()
    };
    drive(&mut world, id, full, 0.25);
    let c = |name: &str| world.channel(id, name).unwrap();
    // With the turbine nearly still the pump absorbs the engine's whole
    // torque at the stall speed.
    let rpm = c("engine_rpm");
    assert!((rpm - 2500.0).abs() < 0.05 * 2500.0, "engine at {rpm} rpm");
    // The turbine's torque is the pump's, 340 N·m (the engine's torque at
    // 2500 rpm) × (rpm / 2500)², times the ratio at this speed ratio: 2.2
    // falling linearly to 1 at the coupling point.
    let pump = 340.0 * (rpm / 2500.0) * (rpm / 2500.0);
    let speed_ratio = c("gearbox_rpm") / rpm;
    assert!(speed_ratio > 0.1 && speed_ratio < 0.5, "{speed_ratio}");
    let expected = 2.2 - 1.2 * speed_ratio / 0.85;
    let multiplication = c("clutch_torque") / pump;
    assert!(
        (multiplication - expected).abs() < 0.01 * expected,
        "turbine over pump torque {multiplication} at speed ratio {speed_ratio}"
    );
    // The engine still gains on the pump's load as it nears the stall.
    assert!(c("engine_torque") >= pump, "{}", c("engine_torque"));
    // At part throttle the turbine catches up: the multiplication is gone
    // and the engine runs above the gearbox input, never locked to it.
    let part = CarInput {
        throttle: 0.3,
        ..full
    };
    drive(&mut world, id, part, 4.0);
    let c = |name: &str| world.channel(id, name).unwrap();
    let (engine, gearbox) = (c("engine_rpm"), c("gearbox_rpm"));
    assert!(gearbox / engine > 0.85, "{gearbox} rpm in at {engine} rpm");
    assert!(engine > gearbox, "{engine} rpm over {gearbox}");
    // Past the coupling point the torque falls linearly with the slip:
    // 340 N·m × (engine/2500)² × (1 − ν)/(1 − 0.85), passed on whole.
    let coupled = 340.0 * engine * (engine - gearbox) / (2500.0 * 2500.0 * 0.15);
    let through = c("clutch_torque");
    assert!(
        (through - coupled).abs() < 0.05 * coupled,
        "{through} N·m through at {engine} rpm over {gearbox}, against {coupled}"
    );
}

#[test]
fn in_gear_at_idle_the_car_creeps_and_the_brake_holds_it() {
    let creep = CarInput {
        gear: 1.0,
        ..CarInput::default()
    };
    let (mut world, id) = at_rest(&automatic());
    drive(&mut world, id, creep, 5.0);
    let speed = world.channel(id, "speed").unwrap();
    assert!(speed > 0.5, "creeps at {speed} m/s");
    let rpm = world.channel(id, "engine_rpm").unwrap();
    let idle = automatic().engine.idle_rpm;
    assert!((rpm - idle).abs() < 0.2 * idle, "idles at {rpm} rpm");

    let (mut world, id) = at_rest(&automatic());
    let braked = CarInput {
        brake: 0.3,
        ..creep
    };
    drive(&mut world, id, braked, 5.0);
    let speed = world.channel(id, "speed").unwrap();
    assert!(speed.abs() < 0.01, "held at {speed} m/s");
}

#[test]
fn a_converter_outside_its_ranges_is_refused() {
    for (stall, ratio, coupling) in [
        (500.0, 2.0, 0.85),
        (9000.0, 2.0, 0.85),
        (2500.0, 0.5, 0.85),
        (2500.0, 2.0, 1.0),
        (f64::NAN, 2.0, 0.85),
    ] {
        let mut def = automatic();
        def.torque_converter = Some(TorqueConverterDefinition {
            stall_rpm: stall,
            stall_torque_ratio: ratio,
            coupling_speed_ratio: coupling,
        });
        let err = def.validate().unwrap_err().to_string();
        assert!(err.contains("torque_converter"), "{err}");
    }
    // Four-wheel drive through a converter is not modelled: refused.
    let mut awd = preset("awd_rally").unwrap();
    awd.torque_converter = automatic().torque_converter;
    let err = awd.validate().unwrap_err().to_string();
    assert!(err.contains("four-wheel drive"), "{err}");
}

#[test]
fn spinning_wheels_on_the_limiter_stay_stable_at_a_coarse_substep() {
    // Near equal speeds the converter's torque changes by hundreds of
    // N·m per rad/s at the wheels in first gear: taken explicitly against
    // a spinning wheel's inertia, this run diverged within a second.
    let mut def = automatic();
    def.substep_rate = 120.0;
    let (mut world, id) = at_rest(&def);
    let full = CarInput {
        throttle: 1.0,
        gear: 1.0,
        ..CarInput::default()
    };
    drive(&mut world, id, full, 8.0);
    let rpm = world.channel(id, "engine_rpm").unwrap();
    assert!(rpm <= def.engine.limiter_rpm * 1.02, "{rpm} rpm");
    assert!(world.channel(id, "speed").unwrap() > 15.0);
}
