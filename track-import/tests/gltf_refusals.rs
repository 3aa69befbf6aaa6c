//! Bad glTF gets an error naming the element, never a panic: not glTF,
//! missing or short buffers, accessors past their data, a required
//! extension, NaN, a scene over its triangle budget, a scene without ground
//! or centre line, a centre line off the road; and any accessor layout a
//! hostile file may declare (a property test).
//!
//! The scenes are written here as glTF JSON with a `data:` buffer: a ring
//! road of radius 50 m and 10 m wide in 24 sections, material `Tarmac`,
//! with a `centre_line` node; each test spoils one thing.

use base64::Engine as _;
use proptest::prelude::*;
use serde_json::{Value, json};
use skidpad_track_import::{GltfOptions, from_gltf};

const SECTIONS: usize = 24;

/// The ring's road vertices (inner and outer edge a section, y-up) and
/// triangles, and the centre line's points.
fn ring() -> (Vec<[f32; 3]>, Vec<u32>, Vec<[f32; 3]>) {
    let at = |k: usize, r: f32| {
        let a = std::f32::consts::TAU * k as f32 / SECTIONS as f32;
        // skidpad's (x, y) = (r cos a, r sin a) is glTF's (x, 0, −y).
        [r * a.cos(), 0.0, -r * a.sin()]
    };
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for k in 0..SECTIONS {
        positions.push(at(k, 55.0));
        positions.push(at(k, 45.0));
        let (a, b) = (2 * k as u32, 2 * ((k + 1) % SECTIONS) as u32);
        // Counter-clockwise seen from above.
        indices.extend([a, b, a + 1, a + 1, b, b + 1]);
    }
    let line = (0..SECTIONS).map(|k| at(k, 50.0)).collect();
    (positions, indices, line)
}

/// The ring as glTF JSON: accessors 0 (road positions), 1 (indices), 2
/// (line positions), one buffer as a data URI.
fn scene() -> Value {
    let (positions, indices, line) = ring();
    let mut blob = Vec::new();
    let floats = |blob: &mut Vec<u8>, points: &[[f32; 3]]| {
        for p in points {
            for c in p {
                blob.extend(c.to_le_bytes());
            }
        }
    };
    floats(&mut blob, &positions);
    let index_offset = blob.len();
    for i in &indices {
        blob.extend(i.to_le_bytes());
    }
    let line_offset = blob.len();
    floats(&mut blob, &line);
    let bounds = |points: &[[f32; 3]]| {
        let pick = |f: fn(f32, f32) -> f32| {
            (0..3)
                .map(|c| points.iter().map(|p| p[c]).fold(points[0][c], f))
                .collect::<Vec<f32>>()
        };
        (pick(f32::min), pick(f32::max))
    };
    let ((road_min, road_max), (line_min, line_max)) = (bounds(&positions), bounds(&line));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&blob)
    );
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "road", "mesh": 0}, {"name": "centre_line", "mesh": 1}],
        "materials": [{"name": "Tarmac"}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]},
            {"primitives": [{"attributes": {"POSITION": 2}, "mode": 2}]}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": positions.len(), "type": "VEC3",
             "min": road_min, "max": road_max},
            {"bufferView": 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": line.len(), "type": "VEC3",
             "min": line_min, "max": line_max}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": index_offset},
            {"buffer": 0, "byteOffset": index_offset, "byteLength": line_offset - index_offset},
            {"buffer": 0, "byteOffset": line_offset, "byteLength": blob.len() - line_offset}
        ],
        "buffers": [{"byteLength": blob.len(), "uri": uri}]
    })
}

fn import(scene: &Value, options: &GltfOptions) -> Result<(), String> {
    let bytes = serde_json::to_vec(scene).unwrap();
    from_gltf(&bytes, options)
        .map(drop)
        .map_err(|e| e.to_string())
}

fn refusal(scene: &Value) -> String {
    import(scene, &GltfOptions::named("ring")).expect_err("refused")
}

fn assert_names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{message:?} does not name {part:?}");
    }
}

#[test]
fn the_unspoilt_ring_imports() {
    let bytes = serde_json::to_vec(&scene()).unwrap();
    let track = from_gltf(&bytes, &GltfOptions::named("ring")).unwrap();
    assert_eq!(track.definition.centre_line.len(), SECTIONS);
    for [right, left] in track.definition.widths.unwrap() {
        // The 24 chords cut the ring's edges by under 0.5 m.
        assert!(
            (4.5..=5.0).contains(&right) && (4.5..=5.0).contains(&left),
            "{right} {left}"
        );
    }
}

#[test]
fn bytes_that_are_not_gltf_are_refused() {
    let error = from_gltf(b"solid cube\nendsolid", &GltfOptions::named("x")).unwrap_err();
    assert_names(&error.to_string(), &["not a glTF 2.0 file"]);
    let error = from_gltf(b"glTF\x02\0\0\0", &GltfOptions::named("x")).unwrap_err();
    assert_names(&error.to_string(), &["not a glTF 2.0 file"]);
}

#[test]
fn a_required_extension_is_refused_by_name() {
    let mut s = scene();
    s["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    s["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    assert_names(
        &refusal(&s),
        &[
            "extensionsRequired[0]",
            "KHR_draco_mesh_compression",
            "Unsupported extension",
        ],
    );
}

#[test]
fn missing_and_short_buffers_are_refused_by_index() {
    let mut s = scene();
    s["buffers"][0]["uri"] = json!("ring.bin");
    assert_names(&refusal(&s), &["buffers[0]", "ring.bin", "no folder"]);
    let dir = tempfile::tempdir().unwrap();
    let options = GltfOptions {
        base_dir: Some(dir.path().to_owned()),
        ..GltfOptions::named("ring")
    };
    assert_names(
        &import(&s, &options).unwrap_err(),
        &["buffers[0]", "ring.bin", "missing"],
    );
    s["buffers"][0]["uri"] = json!("../ring.bin");
    assert_names(
        &import(&s, &options).unwrap_err(),
        &["buffers[0]", "beside the scene"],
    );

    let mut s = scene();
    let length = s["buffers"][0]["byteLength"].as_u64().unwrap();
    s["buffers"][0]["byteLength"] = json!(length + 4);
    assert_names(&refusal(&s), &["buffers[0]", "declares"]);

    let mut s = scene();
    s["buffers"][0] = json!({"byteLength": 16});
    assert_names(&refusal(&s), &["buffers[0]", "binary chunk"]);
}

#[test]
fn an_accessor_past_its_view_or_an_index_past_its_positions_is_refused() {
    let mut s = scene();
    s["accessors"][0]["count"] = json!(2 * SECTIONS + 1);
    assert_names(&refusal(&s), &["accessors[0]", "run past its view"]);
    let mut s = scene();
    s["bufferViews"][0]["byteLength"] = json!(1 << 20);
    assert_names(&refusal(&s), &["accessors[0]", "runs past buffer 0"]);
    let mut s = scene();
    s["accessors"][1]["componentType"] = json!(5126);
    assert_names(&refusal(&s), &["accessors[1]", "unsigned indices"]);
    let mut s = scene();
    s["accessors"][0]["count"] = json!(2 * SECTIONS - 1);
    assert_names(&refusal(&s), &["accessors[1]", "past the 47 positions"]);
}

#[test]
fn nan_is_refused_with_the_element() {
    let mut s = scene();
    // The fifth element's y is NaN: rewrite the buffer's bytes.
    let uri = s["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let (head, payload) = uri.split_once(";base64,").unwrap();
    let mut blob = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    blob[4 * 12 + 4..4 * 12 + 8].copy_from_slice(&f32::NAN.to_le_bytes());
    s["buffers"][0]["uri"] = json!(format!(
        "{head};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&blob)
    ));
    assert_names(&refusal(&s), &["accessors[0]", "element 4 is not finite"]);
}

#[test]
fn a_scene_over_its_triangle_budget_is_refused_before_reading() {
    let options = GltfOptions {
        max_triangles: 2 * SECTIONS - 1,
        ..GltfOptions::named("ring")
    };
    assert_names(
        &import(&scene(), &options).unwrap_err(),
        &["meshes[0].primitives[0]", "budget of 47 triangles"],
    );
}

#[test]
fn a_scene_without_ground_or_centre_line_says_what_to_name() {
    let mut s = scene();
    s["materials"][0]["name"] = json!("Concrete");
    s["nodes"][0]["name"] = json!("stand");
    assert_names(&refusal(&s), &["no mesh names a surface", "tarmac"]);
    let mut s = scene();
    s["nodes"][1]["name"] = json!("racing_line");
    assert_names(&refusal(&s), &["no node named `centre_line`"]);
    let mut s = scene();
    s["nodes"][1]["translation"] = json!([0.0, 0.0, 200.0]);
    assert_names(&refusal(&s), &["centre_line point 0", "not on road"]);
}

/// A centre line of more points than a track takes is refused before a
/// ray is cast for its widths; a line node reached by many paths counts
/// its points against the budget on every path.
#[test]
fn a_huge_or_repeated_centre_line_is_refused_before_any_work() {
    let mut s = scene();
    s["accessors"][2]["count"] = json!(5000);
    s["bufferViews"][2]["byteLength"] = json!(5000 * 12);
    s["buffers"][0]["byteLength"] = json!(1 << 20);
    let uri = s["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let (head, payload) = uri.split_once(";base64,").unwrap();
    let mut blob = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    blob.resize(1 << 20, 0);
    s["buffers"][0]["uri"] = json!(format!(
        "{head};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&blob)
    ));
    assert_names(&refusal(&s), &["5000 centre line points", "at most 4096"]);
    let options = GltfOptions {
        max_triangles: 2 * SECTIONS + SECTIONS - 1,
        ..GltfOptions::named("ring")
    };
    assert_names(
        &import(&scene(), &options).unwrap_err(),
        &["meshes[1].primitives[0]", "budget"],
    );
}

#[test]
fn sector_nodes_out_of_driving_order_are_named() {
    // The ring runs counter-clockwise from (50, 0): a quarter round is
    // (0, 50), glTF's (0, 0, −50); three quarters (0, −50), glTF's (0, 0, 50).
    let mut s = scene();
    let nodes = s["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "sector.1", "translation": [0.0, 0.0, 50.0]}));
    nodes.push(json!({"name": "sector.2", "translation": [0.0, 0.0, -50.0]}));
    s["scenes"][0]["nodes"] = json!([0, 1, 2, 3]);
    assert_names(
        &refusal(&s),
        &[
            "node `sector.2` lies",
            "not after `sector.1`",
            "driving order",
        ],
    );
    // In order, they are the boundaries, a quarter and three quarters round.
    s["nodes"][2]["name"] = json!("sector.2");
    s["nodes"][3]["name"] = json!("sector.1");
    let bytes = serde_json::to_vec(&s).unwrap();
    let track = from_gltf(&bytes, &GltfOptions::named("ring")).unwrap();
    let sectors = track.definition.sectors.clone().unwrap();
    let length = skidpad_core::Track::from_definition(track.definition.clone())
        .unwrap()
        .length();
    assert!(
        (sectors[0] - length / 4.0).abs() < 1.0 && (sectors[1] - 3.0 * length / 4.0).abs() < 1.0,
        "{sectors:?} of {length}"
    );
}

#[test]
fn widths_given_in_the_extras_are_checked_by_the_core() {
    let mut s = scene();
    s["nodes"][1]["extras"] = json!({"width": 0.5});
    assert_names(&refusal(&s), &["width"]);
    let mut s = scene();
    s["nodes"][1]["extras"] = json!({"widths": [[5.0, 5.0]]});
    assert_names(&refusal(&s), &["widths"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever counts, offsets, strides and lengths the accessors and
    /// views declare, the import answers (Ok or an error) without panicking
    /// and without reading past what the file holds.
    #[test]
    fn any_declared_layout_is_answered_without_panic(
        which in 0_usize..3,
        count in prop_oneof![Just(0_u64), 1_u64..200, Just(u64::from(u32::MAX))],
        offset in prop_oneof![Just(0_u64), 1_u64..64, Just(u64::from(u32::MAX))],
        view_length in prop_oneof![1_u64..2000, Just(u64::from(u32::MAX))],
        stride in prop_oneof![Just(None), (4_u64..=252).prop_map(Some)],
        component in prop::sample::select(vec![5120_u64, 5121, 5122, 5123, 5125, 5126]),
    ) {
        let mut s = scene();
        s["accessors"][which]["count"] = json!(count);
        s["accessors"][which]["byteOffset"] = json!(offset);
        s["accessors"][which]["componentType"] = json!(component);
        s["bufferViews"][which]["byteLength"] = json!(view_length);
        if let Some(stride) = stride {
            s["bufferViews"][which]["byteStride"] = json!(stride);
        }
        let _ = import(&s, &GltfOptions::named("ring"));
    }
}
