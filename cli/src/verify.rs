//! `skidpad verify FILE…`: a verdict per file.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use skidpad_core::scenario::hex;
use skidpad_ghost::decode_ghost;
use skidpad_replay::{Limits, decode_replay_with, verify};

use crate::files::{self, Kind};

/// One file's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// The file.
    pub file: PathBuf,
    /// True when the file is valid (and, for a replay, re-simulates with
    /// zero desyncs).
    pub ok: bool,
    /// `replay`, `ghost` or `unknown`.
    pub kind: &'static str,
    /// Human-readable detail.
    pub detail: String,
    /// Replays: steps re-simulated.
    pub steps: Option<u64>,
    /// Replays: keyframes that did not match.
    pub desyncs: Option<u64>,
    /// Replays: world hash after the last step.
    pub final_hash: Option<String>,
}

/// Verifies one file within `limits`; never fails, the verdict says what
/// went wrong.
#[must_use]
pub fn verify_file(path: &Path, limits: &Limits) -> Verdict {
    let mut verdict = Verdict {
        file: path.to_owned(),
        ok: false,
        kind: "unknown",
        detail: String::new(),
        steps: None,
        desyncs: None,
        final_hash: None,
    };
    let result = files::read(path).and_then(|bytes| {
        let kind = files::kind(path, &bytes)?;
        Ok((kind, bytes))
    });
    match result {
        Err(e) => verdict.detail = format!("{e:#}"),
        Ok((Kind::Ghost, bytes)) => {
            verdict.kind = "ghost";
            match decode_ghost(&bytes) {
                Ok(g) => {
                    verdict.ok = true;
                    verdict.detail =
                        format!("valid ghost, {} frames, {:.2} s", g.len(), g.duration());
                }
                Err(e) => verdict.detail = e.to_string(),
            }
        }
        Ok((Kind::Replay, bytes)) => {
            verdict.kind = "replay";
            let hooks = decode_replay_with(&bytes, limits).map(|r| files::hooks_for(&r));
            match hooks.and_then(|h| verify(&bytes, h, limits)) {
                Ok(report) => {
                    verdict.ok = report.is_valid();
                    verdict.steps = Some(report.steps);
                    verdict.desyncs = Some(report.desyncs);
                    verdict.final_hash = Some(hex(&report.final_hash));
                    verdict.detail = if report.is_valid() {
                        format!(
                            "{} steps ({:.1} s), {} keyframes, 0 desyncs",
                            report.steps, report.duration, report.keyframes
                        )
                    } else {
                        let first = report
                            .first_desync
                            .as_ref()
                            .map(|d| format!("; first at step {} (cars {:?})", d.step, d.cars))
                            .unwrap_or_default();
                        format!(
                            "{} desyncs in {} keyframes{first}",
                            report.desyncs, report.keyframes
                        )
                    };
                }
                Err(e) => verdict.detail = e.to_string(),
            }
        }
    }
    verdict
}

/// Every verdict.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    /// One per file, in argument order.
    pub files: Vec<Verdict>,
}

impl VerifyReport {
    /// True when every file passed.
    #[must_use]
    pub fn all_ok(&self) -> bool {
        self.files.iter().all(|v| v.ok)
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.files {
            let mark = if v.ok { "ok  " } else { "FAIL" };
            writeln!(f, "{mark} {} ({}): {}", v.file.display(), v.kind, v.detail)?;
        }
        let failed = self.files.iter().filter(|v| !v.ok).count();
        writeln!(f, "{} passed, {failed} failed", self.files.len() - failed)
    }
}
