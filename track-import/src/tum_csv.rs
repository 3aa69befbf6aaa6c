//! The TUM racetrack database's centre-line CSV: one point a line,
//! `x_m, y_m, w_tr_right_m, w_tr_left_m`, `#` lines are comments, the loop
//! closed implicitly. Read line by line into a [`TrackDefinition`] whose
//! `widths` are the file's, so nothing is held beyond the points kept.

use skidpad_core::MAX_TRACK_CONTROL_POINTS;
use skidpad_core::TrackDefinition;

use crate::{ImportError, ImportOptions};

/// Closest two consecutive points may be, m: closer is a repeated point,
/// which has no direction between it and its neighbour.
const MIN_SPACING: f64 = 0.01;

/// Reads a centre-line CSV into a track definition named and cut by
/// `options`.
///
/// # Errors
/// A line that is not four finite numbers, a side width that is not
/// positive, a full width of 1 m or less, a point repeated (closer than
/// 1 cm to the one before it), fewer than 5 or more than
/// [`MAX_TRACK_CONTROL_POINTS`] points; each error names the line.
pub fn from_tum_csv(text: &str, options: &ImportOptions) -> Result<TrackDefinition, ImportError> {
    let mut centre_line: Vec<[f64; 2]> = Vec::new();
    let mut widths: Vec<[f64; 2]> = Vec::new();
    let mut first_line = 0;
    let mut last_line = 0;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if centre_line.len() == MAX_TRACK_CONTROL_POINTS {
            return Err(ImportError::at(
                number,
                format!("more than {MAX_TRACK_CONTROL_POINTS} points"),
            ));
        }
        let values = parse_row(line).map_err(|reason| ImportError::at(number, reason))?;
        let [x, y, right, left] = values;
        if !(right > 0.0 && left > 0.0 && right + left > 1.0) {
            return Err(ImportError::at(
                number,
                format!(
                    "widths right {right} m, left {left} m: each must be > 0 and together > 1 m"
                ),
            ));
        }
        if let Some(&[px, py]) = centre_line.last()
            && (x - px).hypot(y - py) < MIN_SPACING
        {
            return Err(ImportError::at(
                number,
                format!("repeats the point on line {last_line} ({x}, {y})"),
            ));
        }
        if centre_line.is_empty() {
            first_line = number;
        }
        last_line = number;
        centre_line.push([x, y]);
        widths.push([right, left]);
    }
    if centre_line.len() < 5 {
        return Err(ImportError::File(format!(
            "a circuit needs at least 5 points, the file has {}",
            centre_line.len()
        )));
    }
    let ([fx, fy], [lx, ly]) = (centre_line[0], centre_line[centre_line.len() - 1]);
    if (fx - lx).hypot(fy - ly) < MIN_SPACING {
        return Err(ImportError::at(
            last_line,
            format!(
                "repeats the first point (line {first_line}): the loop closes by itself, \
                 so the last point must not be the first again"
            ),
        ));
    }
    Ok(TrackDefinition {
        name: options.name.clone(),
        width: None,
        centre_line,
        widths: Some(widths),
        elevation: None,
        banking: None,
        start: options.start,
        sectors: options.sectors.clone(),
        grid: None,
        surfaces: Vec::new(),
    })
}

/// Four comma-separated finite numbers.
fn parse_row(line: &str) -> Result<[f64; 4], String> {
    let mut values = [0.0; 4];
    let mut fields = line.split(',');
    for (k, name) in ["x", "y", "width right", "width left"].iter().enumerate() {
        let field = fields
            .next()
            .ok_or_else(|| format!("has {k} values; a point is x, y, width right, width left"))?
            .trim();
        let value: f64 = field
            .parse()
            .map_err(|_| format!("{name} {field:?} is not a number"))?;
        if !value.is_finite() {
            return Err(format!("{name} is {value}, not a finite number"));
        }
        values[k] = value;
    }
    if fields.next().is_some() {
        return Err("has more than 4 values; a point is x, y, width right, width left".to_owned());
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(extra: &str) -> String {
        format!(
            "# x_m,y_m,w_tr_right_m,w_tr_left_m\n0,0,4,4\n50,0,4,4\n100,0,4,4\n100,50,4,4\n50,60,4,4\n{extra}"
        )
    }

    fn error(text: &str) -> String {
        from_tum_csv(text, &ImportOptions::named("t"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_small_loop_reads_with_its_widths() {
        let def = from_tum_csv(&square("0,40,3,5\n"), &ImportOptions::named("t")).unwrap();
        assert_eq!(def.centre_line.len(), 6);
        assert_eq!(def.widths.as_ref().unwrap()[5], [3.0, 5.0]);
        skidpad_core::Track::from_definition(def).unwrap();
    }

    #[test]
    fn bad_rows_are_named_by_line() {
        assert!(
            error(&square("0,NaN,4,4\n")).contains("line 7"),
            "{}",
            error(&square("0,NaN,4,4\n"))
        );
        assert!(error(&square("0,inf,4,4\n")).contains("not a finite"));
        assert!(error(&square("0,40,4\n")).contains("has 3 values"));
        assert!(error(&square("0,40,4,4,1\n")).contains("more than 4"));
        assert!(error(&square("0,40,0.4,0.5\n")).contains("together > 1 m"));
        assert!(error(&square("0,40,-1,5\n")).contains("each must be > 0"));
        assert!(error(&square("50,60,4,4\n")).contains("repeats the point on line 6"));
        assert!(error(&square("0,0,4,4\n")).contains("repeats the first point (line 2)"));
        assert!(error("# nothing\n1,1,4,4\n").contains("at least 5"));
    }

    #[test]
    fn too_many_points_stop_the_read() {
        let mut text = String::new();
        for i in 0..=MAX_TRACK_CONTROL_POINTS {
            text.push_str(&format!("{i},0,4,4\n"));
        }
        assert!(error(&text).contains("more than 4096 points"));
    }
}
