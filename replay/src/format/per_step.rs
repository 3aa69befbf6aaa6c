//! The per-step sections stored as runs: `dt`, `lod` and `surfaces` (a
//! value and how many steps it lasts).

use skidpad_core::{Lod, LodSetting, SurfaceId};

use super::bytes::{Reader, Writer};
use super::header::check_len;
use crate::Result;
use crate::replay::{CarTrack, ReplayHeader};
use crate::runs::Runs;

pub(super) fn encode_runs<T: Copy + PartialEq>(
    runs: &Runs<T>,
    put: impl Fn(&mut Writer, T),
) -> Writer {
    let mut w = Writer::default();
    put_runs(&mut w, runs, put);
    w
}

pub(super) fn put_runs<T: Copy + PartialEq>(
    w: &mut Writer,
    runs: &Runs<T>,
    put: impl Fn(&mut Writer, T),
) {
    w.len32(runs.run_count(), "runs");
    for (length, value) in runs.runs() {
        w.varint(length);
        put(w, value);
    }
}

pub(super) fn decode_runs<T: Copy + PartialEq>(
    r: &mut Reader<'_>,
    get: impl Fn(&mut Reader<'_>) -> Result<T>,
) -> Result<Runs<T>> {
    let n = r.count(2, "runs")?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let length = r.varint()?;
        items.push((length, get(r)?));
    }
    Runs::from_runs(items).map_err(|e| r.error(e))
}

pub(super) fn put_lod(w: &mut Writer, lod: LodSetting) {
    w.u8(lod.level.code());
    w.f64(lod.substep_rate.unwrap_or(0.0));
}

pub(super) fn encode_lods(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    for car in cars {
        put_runs(&mut w, &car.lod, put_lod);
    }
    w
}

pub(super) fn decode_lods(mut r: Reader<'_>, car_steps: &[u64]) -> Result<Vec<Runs<LodSetting>>> {
    let mut out = Vec::new();
    for &steps in car_steps {
        let runs = decode_runs(&mut r, |r| {
            let level = Lod::from_code(r.u8()?).map_err(|e| r.error(e.to_string()))?;
            let rate = r.f64()?;
            if rate.to_bits() == (-0.0_f64).to_bits() {
                return Err(r.error("negative zero rate: not canonical"));
            }
            LodSetting {
                level,
                substep_rate: (rate != 0.0).then_some(rate),
            }
            .validated()
            .map_err(|e| r.error(e.to_string()))
        })?;
        check_len(&r, runs.len(), steps, "lod")?;
        out.push(runs);
    }
    r.finish()?;
    Ok(out)
}

pub(super) fn encode_surfaces(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    for car in cars {
        for wheel in &car.surfaces {
            put_runs(&mut w, wheel, |w, s| w.u8(s.0));
        }
    }
    w
}

pub(super) fn decode_surfaces(
    mut r: Reader<'_>,
    header: &ReplayHeader,
    car_steps: &[u64],
) -> Result<Vec<[Runs<SurfaceId>; 4]>> {
    let count = header.surfaces.surfaces().len();
    let mut out = Vec::new();
    for &steps in car_steps {
        let mut wheels: [Runs<SurfaceId>; 4] = Default::default();
        for wheel in &mut wheels {
            *wheel = decode_runs(&mut r, |r| {
                let id = r.u8()?;
                if usize::from(id) >= count {
                    return Err(
                        r.error(format!("surface id {id} not in the {count}-surface table"))
                    );
                }
                Ok(SurfaceId(id))
            })?;
            check_len(&r, wheel.len(), steps, "surfaces")?;
        }
        out.push(wheels);
    }
    r.finish()?;
    Ok(out)
}
