//! `check`: what a track author wants to know before racing on a track,
//! and what would spoil a race on it.

use std::collections::BTreeMap;
use std::fmt;

use glam::{DVec2, DVec3};
use skidpad_core::{Ground, GroundRay, SurfaceId, Track};

/// Height one level of a crossing must clear the other by, m: a road
/// bridge's clearance.
const CLEARANCE: f64 = 4.5;
/// Side of the grid cells the crossing search bins segments into, m.
const CELL: f64 = 20.0;

/// What [`check`] found.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TrackReport {
    /// The track's name.
    pub name: String,
    /// Its fingerprint, hex.
    pub fingerprint: String,
    /// Control points in the definition.
    pub control_points: usize,
    /// Lap length along the centre line, m.
    pub length: f64,
    /// Narrowest and widest full width, m.
    pub width: (f64, f64),
    /// Radius of the tightest bend, m, and where it is (m from the line).
    pub tightest: (f64, f64),
    /// Lowest and highest point of the centre line, m.
    pub elevation: (f64, f64),
    /// Sector boundaries, m from the line.
    pub sectors: Vec<f64>,
    /// The ground's vertices and triangles (the generated one, or an
    /// imported scene's).
    pub ground: (usize, usize),
    /// What an imported scene held; `None` for a generated ground.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scene: Option<crate::SceneCounts>,
    /// What would spoil a race, one sentence each.
    pub warnings: Vec<String>,
}

/// Checks a built track: its figures, and warnings about a centre line
/// that crosses itself without the height to pass over, and a start line
/// that is not on asphalt.
///
/// # Errors
/// The track's ground cannot be built.
pub fn check(track: &Track) -> Result<TrackReport, skidpad_core::CoreError> {
    check_on(track, &track.ground_source())
}

/// [`check`] of an imported scene: its track on its own ground, with what
/// the scene held.
///
/// # Errors
/// The scene's definition is not a track, or its ground does not build.
pub fn check_scene(scene: &crate::SceneTrack) -> Result<TrackReport, skidpad_core::CoreError> {
    let track = Track::from_definition(scene.definition.clone())?;
    let mut report = check_on(&track, &scene.ground)?;
    report.scene = Some(scene.counts.clone());
    Ok(report)
}

/// The checks on `track` raced on the ground `source` builds.
fn check_on(
    track: &Track,
    source: &skidpad_core::MeshSource,
) -> Result<TrackReport, skidpad_core::CoreError> {
    let (narrow, wide) = track
        .edges_at_points()
        .map(|e| e.left + e.right)
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), w| {
            (lo.min(w), hi.max(w))
        });
    let (k_max, at) = track.curvature().iter().zip(track.distances()).fold(
        (0.0_f64, 0.0),
        |(k, d), (&ki, &di)| {
            if ki.abs() > k { (ki.abs(), di) } else { (k, d) }
        },
    );
    let elevation = track
        .elevation()
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &z| {
            (lo.min(z), hi.max(z))
        });
    let mesh = skidpad_core::TriangleMesh::new(&source.vertices, &source.triangles)?
        .with_surfaces(source.surfaces.clone().unwrap_or_default())?;
    let mut warnings: Vec<String> = crossings(track)
        .into_iter()
        .map(|c| {
            format!(
                "the centre line crosses itself at ({:.1}, {:.1}), {:.0} m and {:.0} m along, \
                 with {:.1} m between the levels (at least {CLEARANCE} m needed to pass over)",
                tenths(c.point.x),
                tenths(c.point.y),
                c.along.0,
                c.along.1,
                c.height_gap
            )
        })
        .collect();
    let (start, _) = track.point_at(0.0);
    let down = GroundRay {
        origin: DVec3::new(start.x, start.y, track.elevation()[0] + 50.0),
        direction: DVec3::NEG_Z,
        max_distance: 100.0,
    };
    match mesh.cast_ray(&down).map(|hit| hit.surface) {
        Some(Some(SurfaceId::DRY_ASPHALT)) => {}
        other => warnings.push(format!(
            "the start line at ({:.1}, {:.1}) is not on asphalt (the ground there: {other:?})",
            tenths(start.x),
            tenths(start.y)
        )),
    }
    Ok(TrackReport {
        name: track.name().to_owned(),
        fingerprint: track.fingerprint_hex(),
        control_points: track.definition().centre_line.len(),
        length: track.length(),
        width: (narrow, wide),
        tightest: (
            if k_max > 0.0 {
                1.0 / k_max
            } else {
                f64::INFINITY
            },
            at,
        ),
        elevation,
        sectors: track.sectors().to_vec(),
        ground: (source.vertices.len(), source.triangles.len()),
        scene: None,
        warnings,
    })
}

/// `x` to a tenth, with −0 (and a tiny negative rounded to it) as 0, so
/// the report never prints "-0.0".
fn tenths(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}

/// Where the centre line crosses itself too low.
struct Crossing {
    point: DVec2,
    along: (f64, f64),
    height_gap: f64,
}

/// Pairs of non-neighbouring polyline segments that intersect with less
/// than `CLEARANCE` between their heights, one per place (a crossing met in
/// several cells, or by a few segments in a row, is reported once).
fn crossings(track: &Track) -> Vec<Crossing> {
    let points = track.points();
    let n = points.len();
    let cell_of = |p: DVec2| ((p.x / CELL).floor() as i64, (p.y / CELL).floor() as i64);
    // BTreeMap: the report lists crossings in the same order every run.
    let mut cells: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let (a, b) = (cell_of(points[i]), cell_of(points[(i + 1) % n]));
        for cx in a.0.min(b.0)..=a.0.max(b.0) {
            for cy in a.1.min(b.1)..=a.1.max(b.1) {
                cells.entry((cx, cy)).or_default().push(i);
            }
        }
    }
    let mut found: Vec<Crossing> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for segments in cells.values() {
        for (k, &i) in segments.iter().enumerate() {
            for &j in &segments[k + 1..] {
                let apart = i.abs_diff(j).min(n - i.abs_diff(j));
                if apart < 2 || !seen.insert((i.min(j), i.max(j))) {
                    continue;
                }
                let (p, r) = (points[i], points[(i + 1) % n] - points[i]);
                let (q, s) = (points[j], points[(j + 1) % n] - points[j]);
                let denom = r.perp_dot(s);
                if denom == 0.0 {
                    continue;
                }
                let t = (q - p).perp_dot(s) / denom;
                let u = (q - p).perp_dot(r) / denom;
                if !((0.0..1.0).contains(&t) && (0.0..1.0).contains(&u)) {
                    continue;
                }
                let z = track.elevation();
                let gap = (z[i] - z[j]).abs();
                let point = p + r * t;
                if gap < CLEARANCE && !found.iter().any(|c| c.point.distance(point) < 10.0) {
                    let d = track.distances();
                    found.push(Crossing {
                        point,
                        along: (d[i.min(j)], d[i.max(j)]),
                        height_gap: gap,
                    });
                }
            }
        }
    }
    found
}

impl fmt::Display for TrackReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "track        {}", self.name)?;
        writeln!(f, "fingerprint  {}", self.fingerprint)?;
        writeln!(
            f,
            "length       {:.1} m ({} control points)",
            self.length, self.control_points
        )?;
        writeln!(
            f,
            "width        {:.1} to {:.1} m",
            self.width.0, self.width.1
        )?;
        writeln!(
            f,
            "tightest     radius {:.1} m, {:.0} m from the line",
            self.tightest.0, self.tightest.1
        )?;
        writeln!(
            f,
            "elevation    {:.1} to {:.1} m",
            self.elevation.0, self.elevation.1
        )?;
        let sectors: Vec<String> = self.sectors.iter().map(|s| format!("{s:.0}")).collect();
        writeln!(
            f,
            "sectors      {} (boundaries at {} m)",
            self.sectors.len() + 1,
            sectors.join(", ")
        )?;
        writeln!(
            f,
            "ground       {} vertices, {} triangles",
            self.ground.0, self.ground.1
        )?;
        if let Some(scene) = &self.scene {
            let surfaces: Vec<String> = scene
                .ground_triangles
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            writeln!(
                f,
                "scene        {} nodes; ground triangles: {}; {} dropped as degenerate",
                scene.nodes,
                surfaces.join(", "),
                scene.dropped_triangles
            )?;
            writeln!(
                f,
                "drawn        {} meshes, {} triangles ({} line or point primitives unused)",
                scene.visual_primitives, scene.visual_triangles, scene.ignored_primitives
            )?;
        }
        if self.warnings.is_empty() {
            writeln!(f, "warnings     none")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning      {w}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use skidpad_core::TrackDefinition;

    use super::*;

    /// A figure of eight 400 m across, crossing itself at the origin, with
    /// the two passes `rise` m apart there.
    fn figure_of_eight(rise: f64) -> Track {
        let n = 32;
        let angles = (0..n).map(|k| std::f64::consts::TAU * f64::from(k) / f64::from(n));
        Track::from_definition(TrackDefinition {
            name: "eight".into(),
            width: Some(10.0),
            centre_line: angles
                .clone()
                .map(|t| [200.0 * t.sin(), 120.0 * (2.0 * t).sin()])
                .collect(),
            widths: None,
            elevation: Some(angles.map(|t| rise / 2.0 * t.cos()).collect()),
            banking: None,
            start: 0.0,
            sectors: None,
            grid: None,
            surfaces: Vec::new(),
        })
        .unwrap()
    }

    #[test]
    fn a_crossing_without_a_bridge_is_warned_about_once() {
        let report = check(&figure_of_eight(0.0)).unwrap();
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.warnings[0].contains("crosses itself at (0.0, 0.0)"),
            "{:?}",
            report.warnings
        );
        let bridged = check(&figure_of_eight(8.0)).unwrap();
        assert!(bridged.warnings.is_empty(), "{:?}", bridged.warnings);
    }
}
