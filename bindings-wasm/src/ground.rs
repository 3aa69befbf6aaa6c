//! Grounds from JavaScript: a heightfield or a triangle mesh built from
//! typed arrays, and the contacts of a step as plain objects.

use js_sys::{Array, Float32Array, Object, Reflect, Uint8Array, Uint32Array};
use skidpad_core::glam::DVec3;
use skidpad_core::{Contact, GroundSource, HeightfieldSource, MeshSource, SurfaceId};
use wasm_bindgen::prelude::*;

use crate::args::{self, field, number, whole};
use crate::error::{JsResult, range_error};

/// Optional per-cell or per-triangle surface ids (`Uint8Array`).
fn surfaces(value: &JsValue) -> JsResult<Option<Vec<SurfaceId>>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    Ok(Some(
        args::bytes(value, "surfaces")?
            .into_iter()
            .map(SurfaceId)
            .collect(),
    ))
}

/// `{ x0, y0, spacing, columns, rows, heights: Float64Array, surfaces? }`
/// as the source of a `Heightfield` (checked when it is built).
pub(crate) fn heightfield(options: &JsValue) -> JsResult<GroundSource> {
    let count = |key: &str| -> JsResult<usize> {
        Ok(whole(&field(options, key)?, key, f64::from(u32::MAX))? as usize)
    };
    Ok(GroundSource::Heightfield(HeightfieldSource {
        x0: number(&field(options, "x0")?, "x0")?,
        y0: number(&field(options, "y0")?, "y0")?,
        spacing: number(&field(options, "spacing")?, "spacing")?,
        columns: count("columns")?,
        rows: count("rows")?,
        heights: args::f64s(&field(options, "heights")?, "heights")?,
        surfaces: surfaces(&field(options, "surfaces")?)?,
    }))
}

/// `vertices` (x, y, z per vertex), `triangles` (three vertex indices
/// each, counter-clockwise from above) and optional per-triangle surfaces
/// as the source of a `TriangleMesh` (checked when it is built).
pub(crate) fn mesh(
    vertices: &JsValue,
    triangles: &JsValue,
    surface_ids: &JsValue,
) -> JsResult<GroundSource> {
    let coordinates = args::f64s(vertices, "vertices")?;
    if coordinates.len() % 3 != 0 {
        return Err(range_error(format!(
            "vertices must hold x, y, z per vertex: {} numbers",
            coordinates.len()
        )));
    }
    let indices = args::u32s(triangles, "triangles")?;
    if indices.len() % 3 != 0 {
        return Err(range_error(format!(
            "triangles must hold three indices each: {} numbers",
            indices.len()
        )));
    }
    let vertices: Vec<DVec3> = coordinates
        .chunks_exact(3)
        .map(|c| DVec3::new(c[0], c[1], c[2]))
        .collect();
    let triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    Ok(GroundSource::Mesh(MeshSource {
        vertices,
        triangles,
        surfaces: surfaces(surface_ids)?,
    }))
}

/// The contacts of the last step as `{ first, second (null: the ground),
/// point: [x, y, z], normal: [x, y, z], depth, impulse }` objects.
pub(crate) fn contacts(contacts: &[Contact]) -> JsResult<Array> {
    let out = Array::new();
    for c in contacts {
        let object = args::object_of_numbers(&[
            ("first", f64::from(c.first.to_raw())),
            ("depth", c.depth),
            ("impulse", c.impulse),
        ])?;
        let second = c
            .second
            .map_or(JsValue::NULL, |car| f64::from(car.to_raw()).into());
        let vector = |v: DVec3| Array::of3(&v.x.into(), &v.y.into(), &v.z.into());
        for (key, value) in [
            ("second", second),
            ("point", vector(c.point).into()),
            ("normal", vector(c.normal).into()),
        ] {
            js_sys::Reflect::set(&object, &key.into(), &value)?;
        }
        out.push(&object);
    }
    Ok(out)
}

/// A carried ground as triangles to draw: `{ positions, indices,
/// surfaces, description }` (`CarriedGround`). Positions are f32: a
/// picture needs no more.
pub(crate) fn drawn_ground(source: &GroundSource) -> JsResult<JsValue> {
    let mesh = source.as_mesh();
    let positions: Vec<f32> = mesh
        .vertices
        .iter()
        .flat_map(|v| [v.x as f32, v.y as f32, v.z as f32])
        .collect();
    let indices: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
    let surfaces = mesh.surfaces.as_ref().map_or(JsValue::NULL, |s| {
        Uint8Array::from(s.iter().map(|id| id.0).collect::<Vec<u8>>().as_slice()).into()
    });
    let description = source
        .build()
        .map_or_else(|e| e.to_string(), |g| g.describe());
    let object = Object::new();
    for (key, value) in [
        ("positions", Float32Array::from(positions.as_slice()).into()),
        ("indices", Uint32Array::from(indices.as_slice()).into()),
        ("surfaces", surfaces),
        ("description", JsValue::from_str(&description)),
    ] {
        Reflect::set(&object, &key.into(), &value)?;
    }
    Ok(object.into())
}
