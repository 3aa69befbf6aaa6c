//! A car package: a car definition's JSON whose tires may name `.tir`
//! files instead of writing their coefficients out
//! (`"tires": {"front": {"tir": "front.tir"}, "rear": {"tir": "rear.tir"}}`),
//! read with the files it names. The caller reads the files (this crate
//! does no I/O) and bounds their size; each is imported as `parse_tir`
//! imports it, and the resolved definition is what a replay stores and a
//! fingerprint is taken of, so a package and the same car written out in
//! full are one car.

use serde_json::Value;

use crate::vehicle::definition::CarDefinition;
use crate::vehicle::tir::parse_tir;
use crate::{CoreError, Result};

impl CarDefinition {
    /// Reads a car package's JSON, importing each tire that names a `.tir`
    /// file (`{"tir": NAME}`) from the text `read_tir(NAME)` returns, then
    /// validates the whole car as [`from_json`](Self::from_json) does. A
    /// definition without `tir` names reads as `from_json` reads it.
    ///
    /// # Errors
    /// The JSON does not parse, `read_tir` fails, a `.tir` file does not
    /// import, or the car does not validate; each error names the axle.
    pub fn from_package_json(
        json: &str,
        read_tir: &mut dyn FnMut(&str) -> Result<String>,
    ) -> Result<CarDefinition> {
        let parse = |message: String| CoreError::Parse {
            what: "car package",
            message,
        };
        let mut value: Value = serde_json::from_str(json).map_err(|e| parse(e.to_string()))?;
        if let Some(tires) = value.get_mut("tires").and_then(Value::as_object_mut) {
            for axle in ["front", "rear"] {
                let Some(tire) = tires.get_mut(axle) else {
                    continue;
                };
                let Some(name) = tire_file(tire) else {
                    continue;
                };
                let name = name.map_err(|why| parse(format!("tires.{axle}: {why}")))?;
                let text =
                    read_tir(&name).map_err(|e| parse(format!("tires.{axle}: {name}: {e}")))?;
                let import =
                    parse_tir(&text).map_err(|e| parse(format!("tires.{axle}: {name}: {e}")))?;
                *tire = serde_json::to_value(&import.parameters)
                    .map_err(|e| parse(format!("tires.{axle}: {e}")))?;
            }
        }
        let definition: CarDefinition =
            serde_json::from_value(value).map_err(|e| CoreError::Parse {
                what: "car definition",
                message: e.to_string(),
            })?;
        definition.validate()?;
        Ok(definition)
    }
}

/// The file a tire entry names, when it is `{"tir": NAME}`; an error when
/// it has `tir` beside other keys or a name that is not a plain file name.
fn tire_file(tire: &Value) -> Option<std::result::Result<String, String>> {
    let object = tire.as_object()?;
    let name = object.get("tir")?;
    if object.len() != 1 {
        return Some(Err(
            "a tire that names a .tir file has no other keys".to_owned()
        ));
    }
    let Some(name) = name.as_str() else {
        return Some(Err("`tir` is a file name".to_owned()));
    };
    let plain = !name.is_empty() && !name.contains(['/', '\\', ':']) && name != ".." && name != ".";
    Some(if plain {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "`tir` names a file beside the package, not {name:?}"
        ))
    })
}
