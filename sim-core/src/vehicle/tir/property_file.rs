//! The `.tir` text format itself, before any tire meaning: `[SECTION]`
//! headers, `KEY = VALUE` lines, comments, quoted strings, tables and the
//! `[UNITS]` section.
//!
//! Rules, taken from the files suppliers publish (TNO's MF-Tyre, MSC's
//! PAC2002 and its MDI header):
//! - a comment starts at `!` or `$` outside quotes and runs to the end of
//!   the line (whole-line comments are the same rule);
//! - a line `{name name …}`, or a first row of numbers, starts a table in
//!   the current section (the `[SHAPE]` tread profile is one); the lines
//!   after it up to the next section header are rows of numbers;
//! - keys are unique within a section (the same key may appear in two
//!   sections, as `IP` does in some files);
//! - this core works in SI units, so `[UNITS]` must name them: anything
//!   else is refused rather than misread by a factor of 1000.

use std::collections::BTreeMap;

use crate::{CoreError, Result};

/// Units this core accepts in the `[UNITS]` section, by quantity.
const SI_UNITS: [(&str, &[&str]); 6] = [
    ("LENGTH", &["meter", "metre", "m"]),
    ("FORCE", &["newton", "n"]),
    ("ANGLE", &["radian", "radians", "rad"]),
    ("MASS", &["kg", "kilogram"]),
    ("TIME", &["second", "sec", "s"]),
    ("PRESSURE", &["pascal", "pa"]),
];

/// A value as written: a number, or anything else (quoted strings and
/// bare words), kept as text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Number(f64),
    Text(String),
}

/// One `KEY = VALUE` line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub section: String,
    pub key: String,
    pub value: Value,
    /// 1-based line number, for messages.
    pub line: usize,
}

/// One table: its column header and how many rows it has.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table {
    pub section: String,
    pub columns: String,
    pub rows: usize,
    pub line: usize,
}

/// A parsed property file: every entry in file order, indexed by key.
#[derive(Clone, Debug, Default)]
pub(crate) struct PropertyFile {
    pub entries: Vec<Entry>,
    pub tables: Vec<Table>,
    /// Key → index into `entries`. A key found in several sections maps to
    /// its first appearance; coefficient names are unique across the
    /// Magic Formula's sections, so lookups by key alone are unambiguous.
    by_key: BTreeMap<String, usize>,
}

impl PropertyFile {
    /// The entry for `key` in any section.
    pub(crate) fn get(&self, key: &str) -> Option<&Entry> {
        self.by_key.get(key).map(|&i| &self.entries[i])
    }

    /// The number written for `key`, if there is one.
    pub(crate) fn number(&self, key: &str) -> Option<f64> {
        match self.get(key)?.value {
            Value::Number(v) => Some(v),
            Value::Text(_) => None,
        }
    }

    /// The text written for `key`, upper-cased and unquoted.
    pub(crate) fn text(&self, key: &str) -> Option<String> {
        match &self.get(key)?.value {
            Value::Text(t) => Some(t.to_ascii_uppercase()),
            Value::Number(v) => Some(v.to_string()),
        }
    }
}

pub(crate) fn malformed(line: usize, reason: impl Into<String>) -> CoreError {
    CoreError::Parse {
        what: "tir file",
        message: format!("line {line}: {}", reason.into()),
    }
}

/// Cuts a trailing `!` or `$` comment that is not inside quotes.
fn strip_comment(s: &str) -> &str {
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '\'' | '"' => quoted = !quoted,
            '!' | '$' if !quoted => return &s[..i],
            _ => {}
        }
    }
    s
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn unquote(value: &str) -> Option<&str> {
    ['\'', '"']
        .iter()
        .find_map(|&q| value.strip_prefix(q).and_then(|v| v.strip_suffix(q)))
}

/// Checks one `[UNITS]` line.
fn check_unit(line: usize, key: &str, value: &str) -> Result<()> {
    let unit = unquote(value).unwrap_or(value).trim().to_ascii_lowercase();
    match SI_UNITS.iter().find(|(q, _)| *q == key) {
        Some((_, accepted)) if accepted.contains(&unit.as_str()) => Ok(()),
        Some((quantity, accepted)) => Err(malformed(
            line,
            format!(
                "{quantity} unit `{unit}` is not supported (this core reads SI: {})",
                accepted.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// Parses `.tir` text into sections, entries and tables.
pub(crate) fn parse(text: &str) -> Result<PropertyFile> {
    let mut file = PropertyFile::default();
    let mut section = String::new();
    let mut in_table = false;
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        if let Some(rest) = content.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| malformed(line, "section header without a closing ]"))?
                .trim();
            if !is_name(name) {
                return Err(malformed(line, format!("bad section name `{name}`")));
            }
            section = name.to_ascii_uppercase();
            in_table = false;
            continue;
        }
        if let Some(rest) = content.strip_prefix('{') {
            let columns = rest
                .strip_suffix('}')
                .ok_or_else(|| malformed(line, "table header without a closing }"))?;
            if section.is_empty() {
                return Err(malformed(line, "a table appears before any [SECTION]"));
            }
            file.tables.push(Table {
                section: section.clone(),
                columns: columns.trim().to_owned(),
                rows: 0,
                line,
            });
            in_table = true;
            continue;
        }
        let numbers = content
            .split_whitespace()
            .all(|w| w.parse::<f64>().is_ok_and(f64::is_finite));
        if numbers && !in_table {
            // Some writers leave the `{…}` header out (MF-Tyre's exporter
            // does for [SHAPE]): a row of numbers starts the table.
            if section.is_empty() {
                return Err(malformed(line, "a table appears before any [SECTION]"));
            }
            file.tables.push(Table {
                section: section.clone(),
                columns: String::new(),
                rows: 0,
                line,
            });
            in_table = true;
        }
        if in_table {
            if !numbers {
                return Err(malformed(
                    line,
                    format!("a table row holds only numbers, found `{content}`"),
                ));
            }
            if let Some(table) = file.tables.last_mut() {
                table.rows += 1;
            }
            continue;
        }
        let (key, value) = content.split_once('=').ok_or_else(|| {
            malformed(
                line,
                format!("expected `KEY = VALUE`, `[SECTION]` or `{{table}}`, found `{content}`"),
            )
        })?;
        let key = key.trim().to_ascii_uppercase();
        let value = value.trim();
        if !is_name(&key) {
            return Err(malformed(line, format!("bad key `{key}`")));
        }
        if value.is_empty() {
            return Err(malformed(line, format!("`{key}` has no value")));
        }
        if section.is_empty() {
            return Err(malformed(
                line,
                format!("`{key}` appears before any [SECTION]"),
            ));
        }
        if section == "UNITS" {
            check_unit(line, &key, value)?;
        }
        if seen.insert((section.clone(), key.clone()), line).is_some() {
            return Err(malformed(line, format!("[{section}] {key} is given twice")));
        }
        let value = match unquote(value) {
            Some(text) => Value::Text(text.trim().to_owned()),
            None => match value.parse::<f64>() {
                Ok(v) if v.is_finite() => Value::Number(v),
                Ok(_) => {
                    return Err(malformed(
                        line,
                        format!("`{key}` = `{value}` is not a finite number"),
                    ));
                }
                Err(_) => Value::Text(value.to_owned()),
            },
        };
        file.by_key.entry(key.clone()).or_insert(file.entries.len());
        file.entries.push(Entry {
            section: section.clone(),
            key,
            value,
            line,
        });
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_counted_and_comments_cut() {
        let file = parse(
            "[MODEL]\nFORMAT = 'PAC2002' $ a comment\n[SHAPE]\n{radial width}\n 1.0 0.0\n 0.9 1.0\n[VERTICAL]\nFNOMIN = 4000 ! load\n",
        )
        .unwrap();
        assert_eq!(file.text("FORMAT").as_deref(), Some("PAC2002"));
        assert_eq!(file.number("FNOMIN"), Some(4000.0));
        assert_eq!(file.tables.len(), 1);
        assert_eq!((file.tables[0].rows, file.tables[0].line), (2, 4));
        let err = parse("[SHAPE]\n{radial width}\n1.0 wide\n").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        let headless = parse("[SHAPE]\n 1.0 0.0\n 0.9 1.0\n").unwrap();
        assert_eq!((headless.tables[0].rows, headless.tables[0].line), (2, 2));
    }

    #[test]
    fn a_bare_word_is_text_and_infinity_is_refused() {
        let file = parse("[MODEL]\nCONTACT = ENVELOPING\n").unwrap();
        assert_eq!(file.text("CONTACT").as_deref(), Some("ENVELOPING"));
        assert!(parse("[MODEL]\nX = inf\n").is_err());
    }
}
