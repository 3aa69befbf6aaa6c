//! `TrackDefinition`: a track as a game authors it (the JSON of
//! `tracks/*.json` and of every importer's output), its checks, and its
//! canonical form and fingerprint, which is what replays and services name
//! so that two different tracks under one name are never confused.

use serde::{Deserialize, Serialize};

use crate::{CoreError, Result};

/// Most control points a track file may hold.
pub const MAX_TRACK_CONTROL_POINTS: usize = 4096;
/// Steepest banking a track file may ask for, rad (about 30°).
pub const MAX_BANKING: f64 = 0.52;
/// Narrowest full width a track may have anywhere, m.
pub const MIN_WIDTH: f64 = 1.0;
/// Widest a side of the road may be, m.
pub const MAX_SIDE_WIDTH: f64 = 100.0;
/// Highest or lowest a centre line may lie, m.
pub const MAX_ELEVATION: f64 = 1e4;
/// Most sector boundaries a track may declare.
pub const MAX_SECTORS: usize = 64;
/// Largest track file read, bytes: 4096 control points with every profile
/// written out take about half a megabyte of JSON, and a centre-line CSV
/// of as many points far less.
pub const MAX_TRACK_FILE_BYTES: usize = 4 << 20;

/// A track as a file holds it. Distances along the line (`start`,
/// `sectors`) are measured on the smoothed centre line the
/// [`Track`](crate::Track) builds from these control points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackDefinition {
    /// The track's name, for people (not part of its fingerprint).
    pub name: String,
    /// Full width where `widths` does not give one, m, centred on the
    /// line. Required when `widths` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// The closed centre line's control points `[x, y]`, m, in driving
    /// order (the last joins the first).
    pub centre_line: Vec<[f64; 2]>,
    /// The road's extent at each control point: `[right, left]`, m from
    /// the centre line to each edge (the order of the TUM racetrack
    /// database). The edges are the track limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widths: Option<Vec<[f64; 2]>>,
    /// Height of the centre line at each control point, m (flat when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation: Option<Vec<f64>>,
    /// Banking at each control point, rad: positive raises the right-hand
    /// edge (the outside of a left-hand bend). Flat when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banking: Option<Vec<f64>>,
    /// Where the start/finish line crosses the centre line: its distance
    /// along the line from the first control point, m. The line is put at
    /// the smoothed line's point nearest to it (at most a twelfth of a
    /// control span away).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start: f64,
    /// The boundaries between sectors, m along the line from the start
    /// line, increasing: n boundaries make n + 1 sectors. At least two;
    /// absent, the lap is cut in thirds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sectors: Option<Vec<f64>>,
    /// The starting grid behind the line ([`GridLayout::default`] when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridLayout>,
    /// Stretches of kerb or run-off with another surface than the
    /// generated ground's own (kerbs along both edges, grass beyond them),
    /// in order of precedence (the first that holds a place wins).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surfaces: Vec<SurfaceSpan>,
}

/// A stretch of a strip beside the road with its own surface: gravel in a
/// run-off, no kerb on a straight (`"dry_asphalt"`), sand in a trap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceSpan {
    /// Where the stretch begins, m along the line from the start line.
    pub from: f64,
    /// Where it ends, m along the line; less than `from` for a stretch
    /// across the start line.
    pub to: f64,
    /// Which side of the road.
    pub side: Side,
    /// Which strip: the kerb or the run-off beyond it.
    pub strip: Strip,
    /// The surface, by its name in the default surface table
    /// (`dry_asphalt`, `wet_asphalt`, `gravel`, `grass`, `sand`, `snow`,
    /// `ice`, `kerb`).
    pub surface: String,
}

/// A side of the road.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// To the left of the direction of travel.
    Left,
    /// To the right.
    Right,
    /// Both sides.
    Both,
}

/// A strip of the generated ground beside the road.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strip {
    /// The kerb along the road's edge.
    Kerb,
    /// The run-off between the kerb and the barrier.
    Runoff,
}

/// Most surface stretches a track may declare: the ground build checks
/// each against every section (up to 49 152), and a definition can come
/// in a stranger's replay.
pub const MAX_SURFACE_SPANS: usize = 256;

impl SurfaceSpan {
    /// True when the stretch holds a place `distance` m along the line on
    /// `side` in `strip`.
    #[must_use]
    pub fn holds(&self, distance: f64, side: Side, strip: Strip) -> bool {
        let on_side = self.side == Side::Both || self.side == side;
        let along = if self.from <= self.to {
            (self.from..self.to).contains(&distance)
        } else {
            distance >= self.from || distance < self.to
        };
        on_side && self.strip == strip && along
    }
}

/// How a grid is laid out behind the line.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridLayout {
    /// Distance of the first row behind the line, m (0: on it).
    pub first_row: f64,
    /// Distance between rows, m.
    pub row_spacing: f64,
    /// Cars abreast in a row (at least 1).
    pub columns: u32,
    /// Distance between the cars of a row, m, centred on the centre line.
    pub column_spacing: f64,
    /// Speed at the start, m/s (0: a standing start).
    pub speed: f64,
}

impl Default for GridLayout {
    /// Two abreast, 5 m apart, rows 8 m apart from 6 m behind the line, at
    /// rest.
    fn default() -> Self {
        GridLayout {
            first_row: 6.0,
            row_spacing: 8.0,
            columns: 2,
            column_spacing: 5.0,
            speed: 0.0,
        }
    }
}

fn is_zero(x: &f64) -> bool {
    // Only an exact +0 is left out, so −0 still round-trips.
    x.to_bits() == 0
}

impl TrackDefinition {
    /// Parses a track file ([`MAX_TRACK_FILE_BYTES`] at most).
    pub fn from_json(json: &str) -> Result<TrackDefinition> {
        if json.len() > MAX_TRACK_FILE_BYTES {
            return Err(invalid(format!(
                "the file is {} bytes; a track file is at most {MAX_TRACK_FILE_BYTES}",
                json.len()
            )));
        }
        serde_json::from_str(json).map_err(|e| CoreError::Parse {
            what: "track",
            message: e.to_string(),
        })
    }

    /// The definition as pretty JSON, as a track file holds it.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a track definition always serialises")
    }

    /// The definition as compact JSON (what a replay carries).
    #[must_use]
    pub fn to_compact_json(&self) -> String {
        serde_json::to_string(self).expect("a track definition always serialises")
    }

    /// The canonical form: compact JSON with every per-point width written
    /// out as `[right, left]` (so a constant `width` and the same widths
    /// written point by point agree), flat profiles dropped, and no name.
    /// Two definitions with the same canonical form build the same track.
    #[must_use]
    pub fn canonical_json(&self) -> String {
        let n = self.centre_line.len();
        let widths = self
            .widths
            .clone()
            .or_else(|| self.width.map(|w| vec![[w / 2.0, w / 2.0]; n]));
        let flat = |p: &Option<Vec<f64>>| {
            p.as_ref()
                .filter(|v| v.iter().any(|x| x.to_bits() != 0))
                .cloned()
        };
        let canonical = TrackDefinition {
            name: String::new(),
            width: None,
            centre_line: self.centre_line.clone(),
            widths,
            elevation: flat(&self.elevation),
            banking: flat(&self.banking),
            start: self.start,
            sectors: self.sectors.clone(),
            grid: self.grid.filter(|g| *g != GridLayout::default()),
            surfaces: self.surfaces.clone(),
        };
        serde_json::to_string(&canonical).expect("a track definition always serialises")
    }

    /// blake3 of [`canonical_json`](Self::canonical_json).
    #[must_use]
    pub fn fingerprint(&self) -> [u8; 32] {
        *blake3::hash(self.canonical_json().as_bytes()).as_bytes()
    }

    /// Checks what can be checked before the line is smoothed: counts,
    /// finite values and ranges. Each error names the element.
    pub(crate) fn check(&self) -> Result<()> {
        let n = self.centre_line.len();
        // At least 5 control points, so the search window of `locate` (two
        // spans either side) never wraps onto itself.
        if !(5..=MAX_TRACK_CONTROL_POINTS).contains(&n) {
            return Err(invalid(format!(
                "centre_line needs 5..={MAX_TRACK_CONTROL_POINTS} points, got {n}"
            )));
        }
        if let Some(i) = self
            .centre_line
            .iter()
            .position(|p| !(p[0].is_finite() && p[1].is_finite()))
        {
            return Err(invalid(format!("centre_line[{i}] is not finite")));
        }
        match (&self.widths, self.width) {
            (Some(widths), _) => {
                if widths.len() != n {
                    return Err(invalid(format!(
                        "widths needs one [right, left] per centre_line point ({n}), got {}",
                        widths.len()
                    )));
                }
                for (i, &[right, left]) in widths.iter().enumerate() {
                    let side_ok = |w: f64| w.is_finite() && w > 0.0 && w <= MAX_SIDE_WIDTH;
                    if !(side_ok(right) && side_ok(left) && right + left > MIN_WIDTH) {
                        return Err(invalid(format!(
                            "widths[{i}] = [{right}, {left}]: each side must be finite, > 0 and \
                             <= {MAX_SIDE_WIDTH} m, and the whole width > {MIN_WIDTH} m"
                        )));
                    }
                }
            }
            (None, Some(w)) => {
                if !(w.is_finite() && w > MIN_WIDTH && w <= 2.0 * MAX_SIDE_WIDTH) {
                    return Err(invalid(format!(
                        "width must be finite, > {MIN_WIDTH} m and <= {} m, got {w}",
                        2.0 * MAX_SIDE_WIDTH
                    )));
                }
            }
            (None, None) => return Err(invalid("needs a width or widths".to_owned())),
        }
        check_profile(self.elevation.as_deref(), "elevation", n, MAX_ELEVATION)?;
        check_profile(self.banking.as_deref(), "banking", n, MAX_BANKING)?;
        if !(self.start.is_finite() && self.start >= 0.0) {
            return Err(invalid(format!(
                "start must be a finite distance >= 0 m, got {}",
                self.start
            )));
        }
        if let Some(sectors) = &self.sectors {
            if !(2..=MAX_SECTORS).contains(&sectors.len()) {
                return Err(invalid(format!(
                    "sectors needs 2..={MAX_SECTORS} boundaries (3 or more sectors), got {}",
                    sectors.len()
                )));
            }
            let mut last = 0.0;
            for (i, &s) in sectors.iter().enumerate() {
                if !(s.is_finite() && s > last) {
                    return Err(invalid(format!(
                        "sectors[{i}] = {s} m is out of order: each boundary must be finite and \
                         beyond the one before it (and beyond the line)"
                    )));
                }
                last = s;
            }
        }
        if self.surfaces.len() > MAX_SURFACE_SPANS {
            return Err(invalid(format!(
                "surfaces holds {} stretches; at most {MAX_SURFACE_SPANS}",
                self.surfaces.len()
            )));
        }
        let table = crate::SurfaceTable::default();
        for (i, span) in self.surfaces.iter().enumerate() {
            if !(span.from.is_finite() && span.to.is_finite() && span.from >= 0.0 && span.to >= 0.0)
                || span.from == span.to
            {
                return Err(invalid(format!(
                    "surfaces[{i}]: from {} and to {} must be finite distances >= 0 m, not equal",
                    span.from, span.to
                )));
            }
            if table.id_of(&span.surface).is_none() {
                let names: Vec<&str> = table.surfaces().iter().map(|s| s.name.as_str()).collect();
                return Err(invalid(format!(
                    "surfaces[{i}]: unknown surface {:?} (the default table has {})",
                    span.surface,
                    names.join(", ")
                )));
            }
        }
        if let Some(grid) = &self.grid {
            let ok = [
                grid.first_row,
                grid.row_spacing,
                grid.column_spacing,
                grid.speed,
            ]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0)
                && grid.columns >= 1
                && grid.columns <= 8;
            if !ok {
                return Err(invalid(format!(
                    "grid {grid:?}: distances and speed must be finite and >= 0, columns 1..=8"
                )));
            }
        }
        Ok(())
    }
}

fn check_profile(values: Option<&[f64]>, what: &str, n: usize, max: f64) -> Result<()> {
    let Some(values) = values else {
        return Ok(());
    };
    if values.len() != n {
        return Err(invalid(format!(
            "{what} needs one value per centre_line point ({n}), got {}",
            values.len()
        )));
    }
    if let Some(i) = values
        .iter()
        .position(|v| !(v.is_finite() && v.abs() <= max))
    {
        return Err(invalid(format!(
            "{what}[{i}] must be finite and within ±{max}, got {}",
            values[i]
        )));
    }
    Ok(())
}

pub(crate) fn invalid(reason: String) -> CoreError {
    CoreError::InvalidArgument {
        what: "track",
        reason,
    }
}
