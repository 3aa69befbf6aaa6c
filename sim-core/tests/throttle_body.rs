//! The throttle body (`EngineDefinition::throttle_body`): a throttle
//! opened θ lets the engine fill its cylinders up to θ × `free_flow_rpm`
//! and chokes beyond, so at a light throttle the torque falls as 1/rpm;
//! wide open it is the full-throttle curve; absent, throttle × curve.

use skidpad_core::{ThrottleBody, preset};

#[test]
fn a_light_throttle_gives_full_filling_up_to_its_flow_and_one_over_rpm_beyond() {
    let mut engine = preset("fwd_hatchback").unwrap().engine;
    let linear = engine.clone();
    engine.throttle_body = Some(ThrottleBody {
        free_flow_rpm: 8000.0,
    });
    // θ = 0.1 feeds the engine freely up to 800 rpm.
    for rpm in [500.0, 800.0] {
        let full = engine.full_throttle_torque(rpm);
        assert_eq!(engine.throttled_torque(0.1, rpm), full);
    }
    for rpm in [1600.0, 3200.0, 6000.0] {
        let full = engine.full_throttle_torque(rpm);
        let t = engine.throttled_torque(0.1, rpm);
        assert!((t - full * 800.0 / rpm).abs() < 1e-9 * full, "{t} at {rpm}");
    }
    // Wide open up to the limiter it is the curve; closed it is nothing.
    for rpm in [1000.0, 4000.0, engine.limiter_rpm] {
        let full = engine.full_throttle_torque(rpm);
        assert_eq!(engine.throttled_torque(1.0, rpm), full);
        assert_eq!(engine.throttled_torque(0.0, rpm), 0.0);
    }
    // Without a throttle body the torque is throttle × curve.
    assert_eq!(
        linear.throttled_torque(0.25, 3000.0),
        0.25 * linear.full_throttle_torque(3000.0)
    );
}

#[test]
fn a_free_flow_speed_below_the_limiter_is_refused() {
    let mut def = preset("fwd_hatchback").unwrap();
    for free_flow_rpm in [def.engine.limiter_rpm - 1.0, f64::NAN, 1e9] {
        def.engine.throttle_body = Some(ThrottleBody { free_flow_rpm });
        let err = def.validate().unwrap_err().to_string();
        assert!(err.contains("throttle_body"), "{err}");
    }
}
