//! A car definition may hold any f64 a program computed (a `.tir`
//! import's relaxation lengths, a fitted gain), and a replay carries the
//! definition as JSON: reading it back must give the same bits, or the
//! verifier would simulate another car. serde_json's default float parser
//! is best-effort (it misreads the last bit of about one 17-digit value in
//! eleven); the workspace turns on its `float_roundtrip` feature.

use skidpad_core::{CarInput, InitialPose, World, WorldConfig, parse_tir, preset};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayRecorder, decode_replay, encode_replay, verify_replay,
};

#[test]
fn a_definition_of_computed_floats_comes_back_bit_for_bit_and_verifies() {
    let mut def = preset("fwd_hatchback").unwrap();
    // A real tire file's import: its trail is QDZ1·R0 = 0.062582 × 0.409,
    // whose shortest decimal has 17 digits.
    let tire = parse_tir(include_str!(
        "../../sim-core/tests/data/tir/suv_Pac02Tire.tir"
    ))
    .unwrap()
    .parameters;
    def.tires.front.pneumatic_trail = tire.pneumatic_trail;
    def.tires.rear.relaxation_y = tire.relaxation_y;
    // Values the default parser reads one bit off.
    def.chassis.inertia[2] += 0.109_578_605_985_494_63;
    def.brakes.front_bias = 0.694_995_896_547_960_9;
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world.add_car(&def, InitialPose::default()).unwrap();
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    for step in 0..360 {
        let input = CarInput {
            throttle: 0.8,
            steer: if step > 120 { -0.2 } else { 0.0 },
            ..CarInput::default()
        };
        world.set_input(id, input).unwrap();
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    let replay = decode_replay(&bytes).unwrap();
    assert_eq!(replay.definitions[0], def, "the definition read back");
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.final_hash, world.world_hash());
}
