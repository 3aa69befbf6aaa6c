//! `.tir` import: a file in the published PAC2002 layout, unknown keys as
//! warnings, malformed files as errors with the line number.

use skidpad_core::{parse_tir, preset};

const FILE: &str = include_str!("data/road_205_55_r16.tir");

#[test]
fn a_pac2002_file_gives_the_coefficients_and_warns_about_the_rest() {
    let import = parse_tir(FILE).unwrap();
    // The file holds the hatchback preset's front tire.
    assert_eq!(
        import.parameters,
        preset("fwd_hatchback").unwrap().tires.front
    );
    let unused: Vec<&str> = import.warnings.iter().map(String::as_str).collect();
    for key in ["FILE_TYPE", "WIDTH", "VERTICAL_STIFFNESS", "PDX3", "PHY3"] {
        assert!(
            unused.iter().any(|w| w.contains(key)),
            "{key} should be a warning: {unused:?}"
        );
    }
    assert!(
        unused.iter().any(|w| w.starts_with("line 22:")),
        "warnings carry line numbers: {unused:?}"
    );
}

/// `FILE` with one line replaced.
fn with_line(n: usize, replacement: &str) -> String {
    FILE.lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { replacement } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_error(text: &str, expected: &[&str]) {
    let err = parse_tir(text).unwrap_err().to_string();
    for e in expected {
        assert!(err.contains(e), "{err:?} should contain {e:?}");
    }
}

#[test]
fn malformed_files_name_the_line() {
    check_error(&with_line(25, "PCX1 1.65"), &["line 25", "KEY = VALUE"]);
    check_error(
        &with_line(25, "PCX1 = fast"),
        &["line 25", "not a finite number"],
    );
    check_error(&with_line(25, "PCX1 ="), &["line 25", "no value"]);
    check_error(
        &with_line(24, "[LONGITUDINAL_COEFFICIENTS"),
        &["line 24", "closing ]"],
    );
    check_error(
        &with_line(11, "FORCE = 'kilonewton'"),
        &["line 11", "FORCE unit"],
    );
    check_error(
        &format!("PCX1 = 1\n{FILE}"),
        &["line 1", "before any [SECTION]"],
    );
    check_error(&with_line(26, "PCX1 = 1.7"), &["line 26", "given twice"]);
    check_error(&with_line(25, "! PCX1 removed"), &["PCX1 is missing"]);
    check_error(&with_line(25, "PCX1 = 9.0"), &["tir.pcx1"]);
}
