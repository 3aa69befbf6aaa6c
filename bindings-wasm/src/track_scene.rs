//! glTF 2.0 scenes as tracks in JavaScript (`TrackScene.fromGltf`), with
//! the importer `skidpad track import` uses: the track as a `TrackView`,
//! its ground for a `World` (`World.setSceneGround`) and as a ground file,
//! the report `skidpad track check` prints, and every mesh for drawing.

use std::sync::Arc;

use js_sys::{Float32Array, Object, Reflect, Uint32Array};
use skidpad_core::{GroundSource, Track};
use skidpad_track_import::{GltfOptions, MAX_SCENE_FILE_BYTES, SceneTrack, TrackReport};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, core_error, range_error};
use crate::track::TrackView;

/// A glTF scene imported as a track.
#[wasm_bindgen]
pub struct TrackScene {
    scene: SceneTrack,
    track: Arc<Track>,
}

#[wasm_bindgen]
impl TrackScene {
    /// Imports a glTF 2.0 scene (the bytes of a `.glb`, or of a `.gltf`
    /// whose buffers are `data:` URIs), named `name`, refusing more than
    /// `maxTriangles` (default 4 million) before reading its meshes. The
    /// rules (surfaces by material name, the `centre_line`, `start` and
    /// `sector.N` nodes) are `skidpad track import --help`'s.
    #[wasm_bindgen(js_name = fromGltf)]
    pub fn from_gltf(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] max_triangles: JsValue,
    ) -> JsResult<TrackScene> {
        let bytes = args::bytes(&bytes, "scene")?;
        if bytes.len() > MAX_SCENE_FILE_BYTES {
            return Err(range_error(format!(
                "the scene is {} bytes; a glTF scene is at most {MAX_SCENE_FILE_BYTES}",
                bytes.len()
            )));
        }
        let mut options = GltfOptions::named(&args::string(&name, "track name")?);
        if !max_triangles.is_undefined() {
            options.max_triangles =
                args::whole(&max_triangles, "maxTriangles", f64::from(u32::MAX))? as usize;
        }
        let scene = skidpad_track_import::from_gltf(&bytes, &options)
            .map_err(|e| range_error(e.to_string()))?;
        let track = Track::from_definition(scene.definition.clone()).map_err(core_error)?;
        Ok(TrackScene {
            scene,
            track: Arc::new(track),
        })
    }

    /// The track: its centre line, edges, sectors and definition.
    #[wasm_bindgen(getter)]
    pub fn track(&self) -> TrackView {
        TrackView::of(self.track.clone())
    }

    /// What `skidpad track check` prints of the scene, as an object.
    #[wasm_bindgen(unchecked_return_type = "TrackReport")]
    pub fn report(&self) -> JsResult<JsValue> {
        let report = skidpad_track_import::check_scene(&self.scene).map_err(core_error)?;
        report_object(&report)
    }

    /// The scene's ground as a ground file (`.skgd`), for replays raced on
    /// it that do not carry it.
    #[wasm_bindgen(js_name = groundFile, unchecked_return_type = "Uint8Array")]
    pub fn ground_file(&self) -> JsResult<Vec<u8>> {
        skidpad_replay::encode_ground_file(&self.ground_source())
            .map_err(crate::error::replay_error)
    }

    /// Hex blake3 fingerprint of the scene's ground: what a replay raced
    /// on it names (`Replay.groundFingerprint`).
    #[wasm_bindgen(getter, js_name = groundFingerprint)]
    pub fn ground_fingerprint(&self) -> JsResult<String> {
        let ground = self.ground_source().build().map_err(core_error)?;
        Ok(skidpad_core::hex(&ground.fingerprint()))
    }

    /// How many meshes the scene draws (ground included).
    #[wasm_bindgen(getter, js_name = meshCount)]
    pub fn mesh_count(&self) -> usize {
        self.scene.visuals.len()
    }

    /// Mesh `index` as drawn, in skidpad's z-up axes.
    #[wasm_bindgen(unchecked_return_type = "SceneMesh")]
    pub fn mesh(&self, index: usize) -> JsResult<JsValue> {
        let mesh = self.scene.visuals.get(index).ok_or_else(|| {
            range_error(format!(
                "mesh {index}: the scene has {} meshes",
                self.scene.visuals.len()
            ))
        })?;
        let object = Object::new();
        let positions: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
        let set = |key: &str, value: JsValue| Reflect::set(&object, &key.into(), &value);
        set("node", mesh.node.as_str().into())?;
        set("material", mesh.material.as_str().into())?;
        set("colour", Float32Array::from(&mesh.colour[..]).into())?;
        set(
            "surface",
            mesh.surface.map_or(JsValue::NULL, |s| s.0.into()),
        )?;
        set("positions", Float32Array::from(&positions[..]).into())?;
        set("indices", Uint32Array::from(&mesh.indices[..]).into())?;
        Ok(object.into())
    }
}

impl TrackScene {
    /// The scene's ground, as a world is given it and a replay carries it.
    pub(crate) fn ground_source(&self) -> GroundSource {
        GroundSource::Mesh(self.scene.ground.clone())
    }
}

/// A track's report as a plain object (the fields of the JSON
/// `skidpad --json track check` prints).
pub(crate) fn report_object(report: &TrackReport) -> JsResult<JsValue> {
    let json = serde_json::to_string(report).map_err(|e| range_error(e.to_string()))?;
    js_sys::JSON::parse(&json)
}
