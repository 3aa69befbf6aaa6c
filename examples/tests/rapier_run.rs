//! The rapier host example: a car on rapier colliders climbs the gravel
//! ramp, flies, lands, meets the wall, and its replay verifies on the same
//! colliders and nowhere else.

use skidpad_core::SurfaceId;
use skidpad_examples::rapier_ground;

#[test]
fn a_car_on_rapier_colliders_records_and_replays_bit_for_bit() {
    let report = rapier_ground::run().unwrap();
    assert_eq!(
        report.surfaces,
        [
            SurfaceId::DRY_ASPHALT,
            SurfaceId::GRAVEL,
            SurfaceId::DRY_ASPHALT
        ],
        "the surfaces come from the colliders' user data"
    );
    // The ramp rises about 3.5 m; the car leaves it with its centre of
    // mass well above the slab.
    assert!(report.top_height > 3.0, "{}", report.top_height);
    assert!(report.wall_contacts > 0, "the body met the wall");
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.hashes.0, report.hashes.1);
    assert!(
        report.plane_error.contains("rapier world of 3 colliders"),
        "{}",
        report.plane_error
    );
    let (duration, x, _) = report.ghost;
    assert!(duration > 9.9 && x > 20.0, "{:?}", report.ghost);
}
