//! A glTF scene's track definition, from its named nodes and its ground:
//!
//! - **`centre_line`** (or `center_line`; a Blender `.001` suffix and case
//!   ignored): a node whose line or point primitive's vertices, in order,
//!   are the closed centre line's control points (a last point repeating
//!   the first is dropped); their heights are its elevation. Its `extras`
//!   may give `"width"` (m, centred) or `"widths"` (`[right, left]` per
//!   point) and `"banking"` (rad per point).
//! - Without widths in the extras, each side's width is **measured on the
//!   ground**: how far across the line, at each control point, the road
//!   surface (dry or wet asphalt) goes on before anything else (kerb,
//!   grass, nothing). The asphalt's edge is the track limit.
//! - **`start`** (or `start_line`): a node whose origin is on the
//!   start/finish line; the line goes where the centre line passes nearest.
//!   Without one, the first control point.
//! - **`sector.1`, `sector.2`, …** (or `sector_1`, `sector1`): nodes on
//!   the sector boundaries, in the order of their numbers. Without them,
//!   the lap is cut in thirds.

use glam::{DVec2, DVec3};
use skidpad_core::{
    Ground, GroundRay, MAX_SIDE_WIDTH, MAX_TRACK_CONTROL_POINTS, MeshSource, SurfaceId, Track,
    TrackDefinition, TriangleMesh,
};

use crate::ImportError;
use crate::gltf_scene::{GltfOptions, NamedNode};

/// Step across the line while the road goes on, m.
const STEP: f64 = 0.25;
/// Halvings of the last step that place the road's edge (to 0.25 mm).
const REFINE: usize = 10;
/// How far above the road met last a width ray starts, and how far down
/// it looks, m: a bridge over the road is more than this above it.
const RAY_ABOVE: f64 = 1.5;
const RAY_LENGTH: f64 = 3.0;

/// What a named node is to the track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    CentreLine,
    Start,
    Sector(u32),
}

/// The role a node's name gives it, if any.
fn role(name: &str) -> Option<Role> {
    let lower = name.to_lowercase();
    let name = match lower.rsplit_once('.') {
        Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            if stem == "sector" {
                return n.parse().ok().map(Role::Sector);
            }
            stem
        }
        _ => lower.as_str(),
    };
    match name {
        "centre_line" | "center_line" | "centreline" | "centerline" => Some(Role::CentreLine),
        "start" | "start_line" => Some(Role::Start),
        _ => name
            .strip_prefix("sector")
            .map(|n| n.strip_prefix('_').unwrap_or(n))
            .and_then(|n| n.parse().ok())
            .map(Role::Sector),
    }
}

/// Whether the walk should keep a node of this name.
pub(crate) fn is_line_node(name: &str) -> bool {
    role(name).is_some()
}

/// What a centre line node's `extras` may say.
#[derive(Debug, Default, serde::Deserialize)]
struct LineExtras {
    width: Option<f64>,
    widths: Option<Vec<[f64; 2]>>,
    banking: Option<Vec<f64>>,
}

/// The track definition the named nodes and the ground give.
pub(crate) fn definition(
    named: &[NamedNode],
    ground: &MeshSource,
    options: &GltfOptions,
) -> Result<TrackDefinition, ImportError> {
    let file = ImportError::File;
    let mut lines = named
        .iter()
        .filter(|n| role(&n.name) == Some(Role::CentreLine));
    let line = lines.next().ok_or_else(|| {
        file("no node named `centre_line`: its line (or points) gives the centre line, in driving order".into())
    })?;
    if let Some(other) = lines.next() {
        return Err(file(format!(
            "two centre lines: nodes `{}` and `{}`",
            line.name, other.name
        )));
    }
    let mut points = line.points.clone();
    if points.len() > 1 && points.first() == points.last() {
        points.pop();
    }
    // Checked before the widths are measured (rays at every point).
    if points.len() > MAX_TRACK_CONTROL_POINTS {
        return Err(file(format!(
            "node `{}` gives {} centre line points; a track has at most {MAX_TRACK_CONTROL_POINTS}",
            line.name,
            points.len()
        )));
    }
    if points.is_empty() {
        return Err(file(format!(
            "node `{}` has no line or point primitive to give the centre line",
            line.name
        )));
    }
    let extras: LineExtras = match &line.extras {
        Some(json) => serde_json::from_str(json)
            .map_err(|e| file(format!("node `{}`: its extras do not read: {e}", line.name)))?,
        None => LineExtras::default(),
    };
    let widths = match (extras.widths, extras.width) {
        (Some(widths), _) => Some(widths),
        (None, Some(_)) => None,
        (None, None) => Some(measure_widths(&points, ground)?),
    };
    let mut definition = TrackDefinition {
        name: options.name.clone(),
        width: extras.width,
        centre_line: points.iter().map(|p| [p.x, p.y]).collect(),
        widths,
        elevation: Some(points.iter().map(|p| p.z).collect()),
        banking: extras.banking,
        start: 0.0,
        sectors: None,
        grid: None,
        surfaces: Vec::new(),
    };
    let provisional = Track::from_definition(definition.clone())?;
    let along = |node: &NamedNode| {
        let origin = node.world.transform_point3(DVec3::ZERO);
        provisional.locate(DVec2::new(origin.x, origin.y)).distance
    };
    definition.start = match options.start {
        Some(start) => start,
        None => named
            .iter()
            .find(|n| role(&n.name) == Some(Role::Start))
            .map_or(0.0, along),
    };
    definition.sectors = match &options.sectors {
        Some(sectors) => Some(sectors.clone()),
        None => {
            let mut sectors: Vec<(u32, f64)> = named
                .iter()
                .filter_map(|n| match role(&n.name) {
                    Some(Role::Sector(k)) => Some((k, along(n))),
                    _ => None,
                })
                .collect();
            sectors.sort_by_key(|&(k, _)| k);
            let length = provisional.length();
            let from_line: Vec<(u32, f64)> = sectors
                .iter()
                .map(|&(k, s)| (k, (s - definition.start).rem_euclid(length)))
                .collect();
            // Named here by node, before the core's check names an index.
            if let Some(pair) = from_line.windows(2).find(|p| p[1].1 <= p[0].1) {
                return Err(file(format!(
                    "node `sector.{}` lies {:.0} m from the start line, not after `sector.{}` at \
                     {:.0} m: sectors are numbered in driving order",
                    pair[1].0, pair[1].1, pair[0].0, pair[0].1
                )));
            }
            (!from_line.is_empty()).then(|| from_line.iter().map(|&(_, s)| s).collect())
        }
    };
    Ok(definition)
}

/// Each control point's `[right, left]` extent of road surface across the
/// line (module docs).
fn measure_widths(points: &[DVec3], ground: &MeshSource) -> Result<Vec<[f64; 2]>, ImportError> {
    let mesh = TriangleMesh::new(&ground.vertices, &ground.triangles)
        .and_then(|m| m.with_surfaces(ground.surfaces.clone().unwrap_or_default()))?;
    let n = points.len();
    let mut widths = Vec::with_capacity(n);
    for i in 0..n {
        let p = points[i];
        let ahead = (points[(i + 1) % n] - points[(i + n - 1) % n]).truncate();
        let left = ahead.normalize_or_zero().perp();
        if left == DVec2::ZERO {
            return Err(ImportError::File(format!(
                "centre_line point {i} has no direction (its neighbours coincide)"
            )));
        }
        let road_at = |offset: f64, z: f64| {
            let at = p.truncate() + left * offset;
            mesh.cast_ray(&GroundRay {
                origin: DVec3::new(at.x, at.y, z + RAY_ABOVE),
                direction: DVec3::NEG_Z,
                max_distance: RAY_LENGTH,
            })
            .filter(|hit| {
                matches!(
                    hit.surface,
                    Some(SurfaceId::DRY_ASPHALT | SurfaceId::WET_ASPHALT)
                )
            })
            .map(|hit| hit.point.z)
        };
        let Some(z0) = road_at(0.0, p.z) else {
            return Err(ImportError::File(format!(
                "centre_line point {i} at ({:.1}, {:.1}, {:.1}) is not on road (a mesh named \
                 tarmac, asphalt or road within {RAY_ABOVE} m of it)",
                p.x, p.y, p.z
            )));
        };
        let mut sides = [0.0; 2];
        for (side, sign) in [-1.0, 1.0].into_iter().enumerate() {
            let (mut inside, mut z) = (0.0, z0);
            let mut outside = None;
            while inside < MAX_SIDE_WIDTH {
                let next = inside + STEP;
                match road_at(sign * next, z) {
                    Some(hit_z) => (inside, z) = (next, hit_z),
                    None => {
                        outside = Some(next);
                        break;
                    }
                }
            }
            let Some(mut out) = outside else {
                sides[side] = MAX_SIDE_WIDTH;
                continue;
            };
            for _ in 0..REFINE {
                let middle = (inside + out) / 2.0;
                match road_at(sign * middle, z) {
                    Some(_) => inside = middle,
                    None => out = middle,
                }
            }
            sides[side] = inside;
        }
        widths.push(sides);
    }
    Ok(widths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_take_their_roles_whatever_the_case_or_blender_suffix() {
        assert_eq!(role("Centre_Line.001"), Some(Role::CentreLine));
        assert_eq!(role("centerline"), Some(Role::CentreLine));
        assert_eq!(role("START"), Some(Role::Start));
        assert_eq!(role("sector.2"), Some(Role::Sector(2)));
        assert_eq!(role("Sector_3.004"), Some(Role::Sector(3)));
        assert_eq!(role("sector10"), Some(Role::Sector(10)));
        assert_eq!(role("sectors"), None);
        assert_eq!(role("grandstand"), None);
    }
}
