//! The snapshot schema: which keys a frame may carry and the row each one
//! holds, declared by the game and checked once when built (seed 001,
//! "Свойства схемы").
//!
//! A schema is data, so it has a JSON form with the seed's property names
//! (`key`, `id`, `kind`, `class`, `fields[].ty`, `fields[].interp`,
//! `fields[].role`, `optionalFrom`), plus `precision`, which marks the
//! player block that travels unrounded.

use serde::{Deserialize, Serialize};

use crate::error::{NetError, Result, schema_error};

/// Longest key name, bytes: names appear in error messages and the JS API,
/// never on the wire.
pub const MAX_KEY_NAME: usize = 64;
/// Most fields in one row. The player block (two counters and a car's
/// 85-word state) is the widest skidpad ships; the limit also bounds how
/// much memory a decoded row may take per byte of frame (`frame.rs`).
pub const MAX_FIELDS: usize = 128;

/// The shape of a block on the wire (seed 001, "Четыре вида блоков").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BlockKind {
    /// `u8` count; rows of `u8 id, u8 hasData, fields`: up to 255
    /// addressable entities (players, cars).
    Indexed8,
    /// `u16` count; rows of `u32 id, u8 hasData, fields`: many short-lived
    /// entities.
    Indexed32,
    /// `u16` count; rows of fields: anonymous events.
    List16,
    /// `u8` count; rows of `u8 index, fields`: fixed slots that never
    /// disappear (map dynamics).
    IndexedNoNull8,
}

impl BlockKind {
    /// Most rows one block of this kind holds.
    #[must_use]
    pub fn max_rows(self) -> usize {
        match self {
            BlockKind::Indexed8 | BlockKind::IndexedNoNull8 => usize::from(u8::MAX),
            BlockKind::Indexed32 | BlockKind::List16 => usize::from(u16::MAX),
        }
    }
}

/// How the client treats a block between frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BlockClass {
    /// Continuous state, interpolated by the client.
    Hot,
    /// Taken once, as it is.
    Event,
}

/// A field's type on the wire, big-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    /// IEEE 754 single.
    F32,
    /// Unsigned byte.
    U8,
    /// Unsigned 16-bit.
    U16,
    /// Unsigned 32-bit.
    U32,
}

impl FieldType {
    /// Bytes on the wire.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            FieldType::U8 => 1,
            FieldType::U16 => 2,
            FieldType::F32 | FieldType::U32 => 4,
        }
    }
}

/// How a field is drawn between two frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Interp {
    /// Linear.
    Lerp,
    /// Linear along the shorter arc of the circle (radians).
    LerpAngle,
    /// The older frame's value until the newer frame's time.
    #[default]
    Discrete,
}

/// A field's part in the engine's contract (seed 001): the map-dynamics
/// row's layer pair and body state byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Height of the body above its level; position 3, paired with `level`.
    Z,
    /// The body's level; position 4, paired with `z`.
    Level,
    /// The body's state byte (`u8`): position 5 in a layered row, 3 in a
    /// flat one, before the optional tail.
    State,
}

/// Whether a block's floats travel rounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Every f32 carries 2 decimals (seed 001, "Округление"): the encoder
    /// rounds, the decoder checks.
    #[default]
    Rounded,
    /// Floats travel as they are: the player block, which prediction
    /// needs exactly.
    Full,
}

/// One field of a row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// The game's name for it.
    pub name: String,
    /// Type on the wire.
    pub ty: FieldType,
    /// Drawing between frames; only f32 fields of hot blocks may
    /// interpolate.
    #[serde(default)]
    pub interp: Interp,
    /// Its part in the engine's contract, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

impl FieldSpec {
    /// A field that is drawn as it is.
    #[must_use]
    pub fn discrete(name: &str, ty: FieldType) -> FieldSpec {
        FieldSpec {
            name: name.to_owned(),
            ty,
            interp: Interp::Discrete,
            role: None,
        }
    }

    /// An f32 field drawn with `interp`.
    #[must_use]
    pub fn float(name: &str, interp: Interp) -> FieldSpec {
        FieldSpec {
            name: name.to_owned(),
            ty: FieldType::F32,
            interp,
            role: None,
        }
    }
}

/// One key of the schema: a block a frame may carry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySpec {
    /// The game's name for the block.
    pub key: String,
    /// The key byte on the wire, unique in the schema.
    pub id: u8,
    /// Block shape.
    pub kind: BlockKind,
    /// Interpolated or taken once.
    pub class: BlockClass,
    /// The row's fields, in wire order.
    pub fields: Vec<FieldSpec>,
    /// Fields from this index on are an optional tail: the row starts
    /// with a flag byte, and an absent tail reads as zeros.
    #[serde(
        default,
        rename = "optionalFrom",
        skip_serializing_if = "Option::is_none"
    )]
    pub optional_from: Option<usize>,
    /// Rounded (the default) or full precision.
    #[serde(default)]
    pub precision: Precision,
}

impl KeySpec {
    /// Bytes of a row's fields with the optional tail present (no flag,
    /// id or hasData byte).
    #[must_use]
    pub fn row_bytes(&self) -> usize {
        self.fields.iter().map(|f| f.ty.size()).sum()
    }

    /// Fewest bytes one row of this key takes on the wire, whatever it
    /// holds: the decoder sizes allocations by it.
    #[must_use]
    pub fn min_row_wire_bytes(&self) -> usize {
        let head = match self.kind {
            BlockKind::Indexed8 => 2,
            BlockKind::Indexed32 => 5,
            BlockKind::List16 => 0,
            BlockKind::IndexedNoNull8 => 1,
        };
        let gone_possible = matches!(self.kind, BlockKind::Indexed8 | BlockKind::Indexed32);
        let fields = match self.optional_from {
            Some(k) => 1 + self.fields[..k].iter().map(|f| f.ty.size()).sum::<usize>(),
            None => self.row_bytes(),
        };
        if gone_possible { head } else { head + fields }
    }

    fn check(&self) -> Result<()> {
        let err = |reason: String| Err(schema_error(&self.key, reason));
        if self.key.is_empty() || self.key.len() > MAX_KEY_NAME {
            return err(format!("a key name has 1 to {MAX_KEY_NAME} bytes"));
        }
        if self.fields.is_empty() || self.fields.len() > MAX_FIELDS {
            return err(format!(
                "a row has 1 to {MAX_FIELDS} fields, this one has {}",
                self.fields.len()
            ));
        }
        for (i, field) in self.fields.iter().enumerate() {
            if field.name.is_empty() {
                return err(format!("field {i} has no name"));
            }
            if self.fields[..i].iter().any(|f| f.name == field.name) {
                return err(format!("field name {:?} appears twice", field.name));
            }
            if field.interp != Interp::Discrete
                && (field.ty != FieldType::F32 || self.class != BlockClass::Hot)
            {
                return err(format!(
                    "field {:?}: only f32 fields of hot blocks interpolate",
                    field.name
                ));
            }
        }
        if let Some(k) = self.optional_from
            && (k == 0 || k >= self.fields.len())
        {
            return err(format!(
                "optionalFrom {k} must leave a non-empty required part and a non-empty tail inside the {} fields",
                self.fields.len()
            ));
        }
        self.check_roles()
    }

    /// The map-dynamics row's roles, where the seed places them.
    fn check_roles(&self) -> Result<()> {
        let err = |reason: String| Err(schema_error(&self.key, reason));
        let at = |role: Role| -> Result<Option<usize>> {
            let mut found = self
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| f.role == Some(role));
            let first = found.next().map(|(i, _)| i);
            if found.next().is_some() {
                return Err(schema_error(
                    &self.key,
                    format!("role {role:?} appears twice"),
                ));
            }
            Ok(first)
        };
        let (z, level, state) = (at(Role::Z)?, at(Role::Level)?, at(Role::State)?);
        let any_role = z.is_some() || level.is_some() || state.is_some();
        if any_role && self.kind != BlockKind::IndexedNoNull8 {
            return err("roles belong to the map-dynamics row, an indexedNoNull8 block".into());
        }
        let layered = match (z, level) {
            (None, None) => false,
            (Some(3), Some(4)) => true,
            (Some(_), None) | (None, Some(_)) => {
                return err("roles z and level go together".into());
            }
            _ => return err("role z belongs at position 3 and level at 4".into()),
        };
        if self.kind == BlockKind::IndexedNoNull8 && !layered {
            for (i, name) in [(3, "z"), (4, "level")] {
                if self.fields.get(i).is_some_and(|f| f.name == name) {
                    return err(format!(
                        "field {name:?} at position {i} without its role: declare role {name:?} (the layer pair is known by role, not by name)"
                    ));
                }
            }
        }
        if let Some(position) = state {
            let expected = if layered { 5 } else { 3 };
            if position != expected {
                return err(format!(
                    "role state belongs at position {expected} in a {} row, found at {position}",
                    if layered { "layered" } else { "flat" }
                ));
            }
            if self.fields[position].ty != FieldType::U8 {
                return err("role state is a u8".into());
            }
            if self.optional_from.is_some_and(|k| k <= position) {
                return err("optionalFrom must come after the state byte".into());
            }
        }
        Ok(())
    }
}

/// A checked set of keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    keys: Vec<KeySpec>,
    /// Position in `keys` by key byte.
    by_id: [Option<u8>; 256],
}

impl Schema {
    /// Checks `keys` (unique ids and names, each entry's rules) and builds
    /// the schema. Errors name the entry.
    pub fn new(keys: Vec<KeySpec>) -> Result<Schema> {
        if keys.len() > usize::from(u8::MAX) {
            return Err(schema_error("", "a schema has at most 255 keys"));
        }
        let mut by_id = [None; 256];
        for (i, spec) in keys.iter().enumerate() {
            spec.check()?;
            if keys[..i].iter().any(|k| k.key == spec.key) {
                return Err(schema_error(&spec.key, "key name appears twice"));
            }
            let slot = &mut by_id[usize::from(spec.id)];
            if let Some(other) = slot {
                let other: &KeySpec = &keys[usize::from(*other)];
                return Err(schema_error(
                    &spec.key,
                    format!("id {} is already key {:?}", spec.id, other.key),
                ));
            }
            *slot = Some(u8::try_from(i).expect("at most 255 keys"));
        }
        Ok(Schema { keys, by_id })
    }

    /// Reads a schema from its JSON form: an array of key entries.
    pub fn from_json(json: &str) -> Result<Schema> {
        let keys: Vec<KeySpec> =
            serde_json::from_str(json).map_err(|e| NetError::SchemaJson(e.to_string()))?;
        Schema::new(keys)
    }

    /// The JSON form [`Schema::from_json`] reads.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.keys).expect("a schema always serializes")
    }

    /// The keys, in declaration order.
    #[must_use]
    pub fn keys(&self) -> &[KeySpec] {
        &self.keys
    }

    /// The entry with key byte `id`.
    #[must_use]
    pub fn by_id(&self, id: u8) -> Option<&KeySpec> {
        self.by_id[usize::from(id)].map(|i| &self.keys[usize::from(i)])
    }

    /// The entry named `key`.
    #[must_use]
    pub fn by_name(&self, key: &str) -> Option<&KeySpec> {
        self.keys.iter().find(|k| k.key == key)
    }

    /// A schema with `extra` keys added after these (a game's own blocks
    /// beside skidpad's), checked as a whole.
    pub fn extended(&self, extra: Vec<KeySpec>) -> Result<Schema> {
        let mut keys = self.keys.clone();
        keys.extend(extra);
        Schema::new(keys)
    }
}
