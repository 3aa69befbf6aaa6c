//! Whatever a device reports, NaN and infinities included, every output
//! of the input layer stays in its range, and the car input is one the
//! core runs unchanged.

use proptest::prelude::*;
use skidpad_input::{
    CentredTravel, Controls, DeviceProfile, DeviceReading, FeedbackFrame, ForceFeedback,
    ForceFeedbackSettings, GearMode, GearSelector, KeyboardDriver, KeyboardTuning, Keys, PedalAxis,
    PedalTravel, Pedals, Response, SteerAxis, car_input, standard_gamepad,
};

/// Any f64, with the awkward ones common.
fn reading() -> impl Strategy<Value = f64> {
    prop_oneof![
        -1.5..1.5f64,
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        any::<f64>(),
    ]
}

fn response() -> impl Strategy<Value = Response> {
    (
        0.0..0.4f64,
        0.0..0.4f64,
        0.2..5.0f64,
        0.05..1.0f64,
        any::<bool>(),
    )
        .prop_map(
            |(dead_zone, outer_dead_zone, exponent, saturation, invert)| Response {
                dead_zone,
                outer_dead_zone,
                exponent,
                saturation,
                invert,
            },
        )
}

fn in_range(c: &Controls) -> bool {
    (-1.0..=1.0).contains(&c.steer)
        && [c.throttle, c.brake, c.handbrake, c.clutch]
            .iter()
            .all(|v| (0.0..=1.0).contains(v))
}

fn wheel(steer: Response, pedal: Response) -> DeviceProfile {
    DeviceProfile {
        name: "wheel".into(),
        steer: Some(SteerAxis {
            axis: 0,
            travel: CentredTravel {
                left: 1.0,
                rest: 0.1,
                right: -0.9,
            },
            response: steer,
        }),
        pedals: Some(Pedals::Split {
            throttle: PedalAxis {
                axis: 1,
                travel: PedalTravel {
                    rest: 1.0,
                    pressed: -1.0,
                },
                response: pedal,
            },
            brake: PedalAxis {
                axis: 2,
                travel: PedalTravel::default(),
                response: pedal,
            },
            clutch: Some(PedalAxis {
                axis: 5,
                travel: PedalTravel::default(),
                response: pedal,
            }),
        }),
        buttons: standard_gamepad().buttons,
    }
}

proptest! {
    #[test]
    fn device_readings_give_controls_in_range(
        steer in response(),
        pedal in response(),
        axes in prop::collection::vec(reading(), 0..8),
        buttons in prop::collection::vec(any::<bool>(), 0..8),
    ) {
        let profile = wheel(steer, pedal);
        prop_assert!(profile.validate().is_ok());
        let reading = DeviceReading { axes, buttons };
        for p in [&profile, &standard_gamepad()] {
            let c = p.controls(&reading);
            prop_assert!(in_range(&c), "{:?}", c);
            let input = car_input(&c, 1, 6);
            prop_assert_eq!(input.sanitized(6).unwrap(), input, "the core runs it unchanged");
        }
    }

    #[test]
    fn keyboard_controls_stay_in_range(
        frames in prop::collection::vec((any::<[bool; 6]>(), reading(), reading()), 1..64),
    ) {
        let mut k = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        for (held, dt, speed) in frames {
            let keys = Keys {
                left: held[0],
                right: held[1],
                throttle: held[2],
                brake: held[3],
                handbrake: held[4],
                clutch: held[5],
            };
            let c = k.update(keys, dt, speed);
            prop_assert!(in_range(&c), "{:?}", c);
        }
    }

    #[test]
    fn force_feedback_stays_within_its_cap(
        frames in prop::collection::vec((reading(), reading(), reading(), any::<bool>()), 1..64),
        max_output in 0.0..1.0f64,
    ) {
        let settings = ForceFeedbackSettings { max_output, ..ForceFeedbackSettings::default() };
        let mut ff = ForceFeedback::new(settings).unwrap();
        for (k, (torque, wheel_speed, lag, visible)) in frames.into_iter().enumerate() {
            let now = k as f64 / 60.0;
            let lag = if lag.is_finite() { lag.abs().min(1.0) } else { lag };
            let (out, _) = ff.update(FeedbackFrame { now, last_update: now - lag, torque, wheel_speed, visible });
            prop_assert!(out.is_finite() && out.abs() <= max_output, "{}", out);
        }
    }

    #[test]
    fn the_gear_stays_between_reverse_and_top(
        presses in prop::collection::vec((any::<bool>(), any::<bool>(), prop::option::of(-3..12i32)), 1..64),
        top in 1..8i32,
    ) {
        for mode in [GearMode::Automatic, GearMode::Sequential, GearMode::HPattern] {
            let mut s = GearSelector::new(mode, top);
            for &(up, down, gate) in &presses {
                let g = s.update(skidpad_input::ShiftButtons { up, down, gate });
                prop_assert!((-1..=top).contains(&g), "{:?}: {}", mode, g);
            }
        }
    }
}
