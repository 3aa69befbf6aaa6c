//! Grounds from JavaScript: a heightfield or a triangle mesh built from
//! typed arrays, and the contacts of a step as plain objects.

use std::sync::Arc;

use js_sys::Array;
use skidpad_core::glam::DVec3;
use skidpad_core::{Contact, Ground, Heightfield, SurfaceId, TriangleMesh};
use wasm_bindgen::prelude::*;

use crate::args::{self, field, number, whole};
use crate::error::{JsResult, core_error, range_error};

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
/// as a `Heightfield`.
pub(crate) fn heightfield(options: &JsValue) -> JsResult<Arc<dyn Ground>> {
    let count = |key: &str| -> JsResult<usize> {
        Ok(whole(&field(options, key)?, key, f64::from(u32::MAX))? as usize)
    };
    let grid = Heightfield::new(
        number(&field(options, "x0")?, "x0")?,
        number(&field(options, "y0")?, "y0")?,
        number(&field(options, "spacing")?, "spacing")?,
        count("columns")?,
        count("rows")?,
        args::f64s(&field(options, "heights")?, "heights")?,
    )
    .map_err(core_error)?;
    let grid = match surfaces(&field(options, "surfaces")?)? {
        Some(s) => grid.with_cell_surfaces(s).map_err(core_error)?,
        None => grid,
    };
    Ok(Arc::new(grid))
}

/// `vertices` (x, y, z per vertex), `triangles` (three vertex indices
/// each, counter-clockwise from above) and optional per-triangle surfaces
/// as a `TriangleMesh`.
pub(crate) fn mesh(
    vertices: &JsValue,
    triangles: &JsValue,
    surface_ids: &JsValue,
) -> JsResult<Arc<dyn Ground>> {
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
    let mesh = TriangleMesh::new(&vertices, &triangles).map_err(core_error)?;
    let mesh = match surfaces(surface_ids)? {
        Some(s) => mesh.with_surfaces(s).map_err(core_error)?,
        None => mesh,
    };
    Ok(Arc::new(mesh))
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
