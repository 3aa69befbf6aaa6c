//! What an archived core answers, as the host reads its JSON
//! (`cores/ABI.md` lists every field).

use serde::Deserialize;

/// A replay's header as an archived core decoded it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ArchivedHeader {
    /// The replay's simulation version (the core's own, or it refuses).
    pub simulation_version: u32,
    /// The core version string that recorded it.
    pub recorded_by: String,
    /// Cars at the start.
    pub cars: u32,
    /// Steps recorded.
    pub steps: u64,
    /// Steps between keyframes.
    pub keyframe_every: u32,
    /// Keyframes the replay holds.
    pub keyframes: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// The game's metadata, in order.
    pub metadata: Vec<(String, String)>,
    /// (step, world hash in hex) of every keyframe, as the file records
    /// them.
    pub recorded_hashes: Vec<(u64, String)>,
    /// The cars' definition names, in playback order.
    pub car_names: Vec<String>,
    /// Ghost tracks embedded in the replay.
    pub embedded_ghosts: u64,
    /// Each car's definition as that version's JSON.
    pub definitions: Vec<String>,
    /// The step lengths as (steps, seconds) runs, in step order.
    pub dt_runs: Vec<(u64, f64)>,
}

/// One field that differed at the first desync.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "FieldDiffAnswer")]
pub struct ArchivedFieldDiff {
    /// The car, as that version prints its id.
    pub car: String,
    /// The field's name in that version's snapshot.
    pub field: String,
    /// The value the recording holds.
    pub recorded: f64,
    /// The value the re-simulation reached.
    pub simulated: f64,
}

/// A field diff as the ABI answers it: the values are read from their
/// bits, since serde_json's default float parsing may miss the last bit.
#[derive(Deserialize)]
struct FieldDiffAnswer {
    car: String,
    field: String,
    recorded_bits: String,
    simulated_bits: String,
}

impl TryFrom<FieldDiffAnswer> for ArchivedFieldDiff {
    type Error = String;

    fn try_from(a: FieldDiffAnswer) -> Result<Self, String> {
        let bits = |hex: &str| {
            u64::from_str_radix(hex, 16)
                .map(f64::from_bits)
                .map_err(|e| format!("bits {hex:?}: {e}"))
        };
        Ok(ArchivedFieldDiff {
            recorded: bits(&a.recorded_bits)?,
            simulated: bits(&a.simulated_bits)?,
            car: a.car,
            field: a.field,
        })
    }
}

/// The first keyframe that did not match.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ArchivedDesync {
    /// Its step.
    pub step: u64,
    /// That version's own description of it.
    pub text: String,
    /// Field by field.
    pub fields: Vec<ArchivedFieldDiff>,
}

/// An archived core's verdict on a replay.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ArchivedVerdict {
    /// The header as the core read it.
    #[serde(flatten)]
    pub header: ArchivedHeader,
    /// Steps re-simulated.
    pub steps_simulated: u64,
    /// Keyframes that did not match.
    pub desyncs: u64,
    /// The first of them, field by field.
    pub first_desync: Option<ArchivedDesync>,
    /// The world hash after the last step, in hex.
    pub final_hash: String,
    /// (step, world hash in hex) before the first step and at every
    /// keyframe the player reached.
    pub keyframe_hashes: Vec<(u64, String)>,
    /// Fuel the sandbox metered (the host fills it in).
    #[serde(default)]
    pub fuel_used: u64,
}

impl ArchivedVerdict {
    /// True when every keyframe matched.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.desyncs == 0
    }
}
