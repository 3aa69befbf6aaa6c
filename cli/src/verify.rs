//! `skidpad verify FILE…`: a verdict per file, with the field-by-field
//! report of the first desync.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use skidpad_core::hex;
use skidpad_cores::SandboxBudget;
use skidpad_ghost::decode_ghost;
use skidpad_replay::{
    DesyncReport, FileKind, Limits, RewindTotals, TakeOverOrigin, decode_replay_with, verify_replay,
};

use crate::archived;
use crate::beside::Beside;
use crate::files::{self, GameLogic};
use crate::text::printable;

/// How a file fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A valid ghost, or a replay that re-simulated with zero desyncs.
    Ok,
    /// A replay that re-simulated but did not match its keyframes.
    Desync,
    /// The file could not be read, is not a skidpad file, is corrupt, is
    /// of another version or declares more work than the limits allow.
    InputError,
}

/// One state field that differs at the first desync.
#[derive(Clone, Debug, Serialize)]
pub struct FieldReport {
    /// Playback car index.
    pub car: u32,
    /// Snapshot field name.
    pub field: String,
    /// The recorded value.
    pub recorded: f64,
    /// The re-simulated value.
    pub simulated: f64,
}

/// The first keyframe that did not match.
#[derive(Clone, Debug, Serialize)]
pub struct FirstDesync {
    /// The keyframe's step.
    pub step: u64,
    /// Cars whose state differed.
    pub cars: Vec<u32>,
    /// Every differing field.
    pub fields: Vec<FieldReport>,
}

impl From<&DesyncReport> for FirstDesync {
    fn from(d: &DesyncReport) -> Self {
        FirstDesync {
            step: d.step,
            cars: d.cars.iter().map(|c| c.to_raw()).collect(),
            fields: d
                .fields
                .iter()
                .map(|f| FieldReport {
                    car: f.car.to_raw(),
                    field: f.field.to_owned(),
                    recorded: f.recorded,
                    simulated: f.simulated,
                })
                .collect(),
        }
    }
}

/// One file's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// The file.
    pub file: PathBuf,
    /// What was found.
    pub status: Status,
    /// True when the status is `ok`.
    pub ok: bool,
    /// What the file is by its first bytes ([`FileKind::name`]): `replay`,
    /// `ghost`, `stream`, `empty` or `unknown` (unread).
    pub kind: &'static str,
    /// Human-readable detail.
    pub detail: String,
    /// Replays: steps re-simulated.
    pub steps: Option<u64>,
    /// Replays: keyframes that did not match.
    pub desyncs: Option<u64>,
    /// Replays: the first mismatch, field by field.
    pub first_desync: Option<FirstDesync>,
    /// Replays: world hash after the last step.
    pub final_hash: Option<String>,
    /// Replays: the core that re-simulated it, such as `simulation version
    /// 3 (archived)` (an older version's archived core, in a sandbox) or
    /// `simulation version 9 (native)`.
    pub core: Option<String>,
    /// Replays taken over from another run: where they began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken_over: Option<TakeOverOrigin>,
    /// Replays the player rewound: how many rewinds, and what they took back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewinds: Option<RewindTotals>,
}

impl Verdict {
    fn set(&mut self, status: Status, detail: String) {
        self.status = status;
        self.ok = status == Status::Ok;
        self.detail = detail;
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Verifies one file within `limits`, a replay played with the hooks
/// `game_logic` gives it; never fails, the verdict says what went wrong.
/// The file is decoded once: the decoder refuses another simulation
/// version and any declared size over `limits` before the body is read.
#[must_use]
pub fn verify_file(path: &Path, limits: &Limits, game_logic: GameLogic) -> Verdict {
    verify_file_on(path, limits, game_logic, &Beside::default())
}

/// [`verify_file`], given what a replay that does not carry it was
/// recorded on (`--ground`, `--track`): each is used when it is the one
/// the replay names, and refused, naming both, when it is not.
#[must_use]
pub fn verify_file_on(
    path: &Path,
    limits: &Limits,
    game_logic: GameLogic,
    beside: &Beside,
) -> Verdict {
    let mut verdict = Verdict {
        file: path.to_owned(),
        status: Status::InputError,
        ok: false,
        kind: "unknown",
        detail: String::new(),
        steps: None,
        desyncs: None,
        first_desync: None,
        final_hash: None,
        core: None,
        taken_over: None,
        rewinds: None,
    };
    let result = files::read(path).and_then(|bytes| {
        // Named even when the command cannot take it (a stream, an empty
        // file), so the label agrees with the message.
        verdict.kind = FileKind::sniff(&bytes).name();
        let kind = files::kind(path, &bytes)?;
        Ok((kind, bytes))
    });
    match result {
        Err(e) => verdict.set(Status::InputError, format!("{e:#}")),
        Ok((FileKind::Ghost, bytes)) => match decode_ghost(&bytes) {
            Ok(g) => verdict.set(
                Status::Ok,
                format!("valid ghost, {} frames, {:.2} s", g.len(), g.duration()),
            ),
            Err(e) => verdict.set(Status::InputError, e.to_string()),
        },
        // `files::kind` lets only replays and ghosts through.
        Ok((_, bytes)) if archived::other_version(&bytes).is_some() => {
            verify_archived(&bytes, limits, &mut verdict);
        }
        Ok((_, bytes)) => {
            let verified = decode_replay_with(&bytes, limits)
                .map_err(anyhow::Error::from)
                .and_then(|mut replay| {
                    beside.apply(&mut replay)?;
                    let carries_game_state =
                        replay.keyframes.iter().any(|k| !k.game_state.is_empty());
                    let hooks = files::hooks_for(&replay, game_logic);
                    let taken_over = replay.header.take_over()?;
                    Ok(verify_replay(&replay, hooks, limits)
                        .map(|r| (r, carries_game_state, taken_over))?)
                });
            match verified {
                Ok((report, carries_game_state, taken_over)) => {
                    let origin = taken_over.as_ref().map_or(String::new(), |o| {
                        format!(
                            ", taken over at step {} of the run that ended {} (car {})",
                            o.step,
                            printable(&o.source),
                            o.car
                        )
                    });
                    verdict.taken_over = taken_over;
                    let rewinds = report.rewinds;
                    let origin = if rewinds.count == 0 {
                        origin
                    } else {
                        verdict.rewinds = Some(rewinds);
                        format!(
                            "{origin}, {} taking back {} steps ({:.1} s)",
                            plural(rewinds.count, "rewind", "rewinds"),
                            rewinds.steps,
                            rewinds.seconds
                        )
                    };
                    verdict.steps = Some(report.steps);
                    verdict.desyncs = Some(report.desyncs);
                    verdict.final_hash = Some(hex(&report.final_hash));
                    verdict.first_desync = report.first_desync.as_ref().map(FirstDesync::from);
                    let core = archived::core_label(report.simulation_version);
                    verdict.core = Some(core.clone());
                    let keyframes = plural(report.keyframes as u64, "keyframe", "keyframes");
                    if report.is_valid() {
                        verdict.set(
                            Status::Ok,
                            format!(
                                "{} steps ({:.1} s), {keyframes}, 0 desyncs, verified by {core}{origin}",
                                report.steps, report.duration
                            ),
                        );
                    } else {
                        let desyncs = plural(report.desyncs, "desync", "desyncs");
                        // A game's state in the keyframes means the game's
                        // own logic acted in the race; without it a
                        // replay cannot re-simulate.
                        let hint = if carries_game_state {
                            "; the replay carries a game's state, so it may need that game's logic, which this verifier lacks"
                        } else {
                            ""
                        };
                        verdict.set(
                            Status::Desync,
                            format!("{desyncs} in {keyframes}, re-simulated by {core}{hint}"),
                        );
                    }
                }
                Err(e) => verdict.set(Status::InputError, e.to_string()),
            }
        }
    }
    verdict
}

/// Verifies a replay of an older simulation version with that version's
/// archived core, in a sandbox whose budget is `limits`' share.
fn verify_archived(bytes: &[u8], limits: &Limits, verdict: &mut Verdict) {
    let result = archived::cores().and_then(|cores| {
        cores
            .verify(bytes, SandboxBudget::from_limits(limits))
            .map_err(anyhow::Error::from)
    });
    let report = match result {
        Ok(report) => report,
        Err(e) => return verdict.set(Status::InputError, format!("{e:#}")),
    };
    let core = archived::core_label(report.header.simulation_version);
    verdict.steps = Some(report.steps_simulated);
    verdict.desyncs = Some(report.desyncs);
    verdict.final_hash = Some(report.final_hash.clone());
    verdict.core = Some(core.clone());
    verdict.first_desync = report.first_desync.as_ref().map(|d| {
        let fields: Vec<FieldReport> = d
            .fields
            .iter()
            .map(|f| FieldReport {
                // Every version prints a car id as its number.
                car: f.car.parse().unwrap_or(u32::MAX),
                field: f.field.clone(),
                recorded: f.recorded,
                simulated: f.simulated,
            })
            .collect();
        let mut cars: Vec<u32> = fields.iter().map(|f| f.car).collect();
        cars.sort_unstable();
        cars.dedup();
        FirstDesync {
            step: d.step,
            cars,
            fields,
        }
    });
    let keyframes = plural(report.header.keyframes, "keyframe", "keyframes");
    if report.is_valid() {
        verdict.set(
            Status::Ok,
            format!(
                "{} steps ({:.1} s), {keyframes}, 0 desyncs, verified by {core}",
                report.steps_simulated, report.header.duration
            ),
        );
    } else {
        let desyncs = plural(report.desyncs, "desync", "desyncs");
        verdict.set(
            Status::Desync,
            format!("{desyncs} in {keyframes}, re-simulated by {core}"),
        );
    }
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

    /// The worst status: an input error outranks a desync, which outranks
    /// ok (exit codes 2, 1, 0).
    #[must_use]
    pub fn worst(&self) -> Status {
        let has = |s| self.files.iter().any(|v| v.status == s);
        if has(Status::InputError) {
            Status::InputError
        } else if has(Status::Desync) {
            Status::Desync
        } else {
            Status::Ok
        }
    }
}

/// Fields listed per desync in the text output; `--json` has them all.
const FIELDS_SHOWN: usize = 12;

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.files {
            let mark = if v.ok { "ok  " } else { "FAIL" };
            let file = printable(&v.file.display().to_string());
            writeln!(f, "{mark} {file} ({}): {}", v.kind, printable(&v.detail))?;
            if let Some(d) = &v.first_desync {
                let cars: Vec<String> = d.cars.iter().map(u32::to_string).collect();
                writeln!(
                    f,
                    "     first desync at step {}, car{} {}:",
                    d.step,
                    if cars.len() == 1 { "" } else { "s" },
                    cars.join(", ")
                )?;
                writeln!(
                    f,
                    "     {:>4}  {:<24} {:>24} {:>24}",
                    "car", "field", "recorded", "re-simulated"
                )?;
                for field in d.fields.iter().take(FIELDS_SHOWN) {
                    writeln!(
                        f,
                        "     {:>4}  {:<24} {:>24} {:>24}",
                        field.car, field.field, field.recorded, field.simulated
                    )?;
                }
                if d.fields.len() > FIELDS_SHOWN {
                    writeln!(
                        f,
                        "     … {} more fields (--json lists them all)",
                        d.fields.len() - FIELDS_SHOWN
                    )?;
                }
            }
        }
        let failed = self.files.iter().filter(|v| !v.ok).count();
        writeln!(f, "{} passed, {failed} failed", self.files.len() - failed)
    }
}
