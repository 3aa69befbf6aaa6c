//! `CHANNELS.md` is the telemetry channel list as the code has it: every
//! channel with its index, unit, interpolation mode, group and meaning.
//! Regenerate it with
//! `SKIDPAD_WRITE_CHANNELS=1 cargo test -p skidpad-core --test channels_doc`.

use skidpad_core::{CHANNELS, Interpolation};

fn render() -> String {
    let mut out = String::from(
        "# Telemetry channels\n\n\
         Every channel `World::channel` and `World::telemetry` give for a car,\n\
         in value order (the index is the position in `World::telemetry`'s\n\
         slice and in `CHANNELS`). Names are a contract: new channels are\n\
         appended and no name changes meaning. The interpolation mode says how\n\
         to draw a channel between two samples: `lerp` along a straight line,\n\
         `lerpAngle` along the shorter way round an angle that wraps at ±π,\n\
         `discrete` held until the next sample (gears, ids, flags).\n\n\
         Generated from `sim-core/src/world/telemetry.rs`; regenerate with\n\
         `SKIDPAD_WRITE_CHANNELS=1 cargo test -p skidpad-core --test channels_doc`\n\
         (the test fails while this file and the code differ).\n",
    );
    let mut groups: Vec<&str> = Vec::new();
    for channel in &CHANNELS {
        if !groups.contains(&channel.group) {
            groups.push(channel.group);
        }
    }
    for group in groups {
        out.push_str(&format!(
            "\n## {group}\n\n| index | name | unit | interpolation | meaning |\n|---:|---|---|---|---|\n"
        ));
        for (index, channel) in CHANNELS.iter().enumerate() {
            if channel.group == group {
                out.push_str(&format!(
                    "| {index} | `{}` | {} | {} | {} |\n",
                    channel.name,
                    channel.unit,
                    channel.interpolation.name(),
                    channel.description
                ));
            }
        }
    }
    out
}

#[test]
fn channels_md_is_the_channel_list() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../CHANNELS.md");
    let rendered = render();
    if std::env::var_os("SKIDPAD_WRITE_CHANNELS").is_some() {
        std::fs::write(path, &rendered).unwrap();
    }
    let kept = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        kept == rendered,
        "CHANNELS.md differs from the code: regenerate it (see this test's docs)"
    );
}

#[test]
fn codes_and_wrapping_angles_have_the_right_modes() {
    let mode = |name: &str| {
        CHANNELS
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.interpolation)
    };
    for name in [
        "gear",
        "input_gear",
        "lod",
        "wheel_fl_contact",
        "wheel_rr_surface",
    ] {
        assert_eq!(mode(name), Some(Interpolation::Discrete), "{name}");
    }
    for name in ["yaw", "roll", "body_slip"] {
        assert_eq!(mode(name), Some(Interpolation::LerpAngle), "{name}");
    }
    assert_eq!(mode("speed"), Some(Interpolation::Lerp));
    // Every unit-less code is discrete.
    for channel in &CHANNELS {
        if channel.unit == "id" || channel.unit == "bool" {
            assert_eq!(
                channel.interpolation,
                Interpolation::Discrete,
                "{}",
                channel.name
            );
        }
    }
}
