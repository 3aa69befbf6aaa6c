//! The input streams: each of the six input fields of each car, coded as
//! small integer steps.
//!
//! The core rounds analog inputs to multiples of 1/65536 (and gears to
//! whole numbers), so every value the core ran with is `q / 65536` for an
//! integer `q`. A value is coded as the zigzagged difference to the
//! previous such `q` of the same stream, shifted left one bit, as a LEB128
//! varint: a constant pedal costs one zero byte a step, which the section's
//! deflate then squeezes to almost nothing. Any other f64 (a replay built by
//! hand) is the escape token `1` followed by its 8 raw bytes, so the coding
//! is lossless for every input.

use skidpad_core::CarInput;

use super::bytes::{Reader, Writer};
use super::compress::{CanonicalLevel, deflated_section, inflate};
use crate::Result;
use crate::replay::CarTrack;

const SCALE: f64 = 65_536.0;
/// Grid integers stay within f64's exact integer range.
const MAX_GRID: f64 = 9_007_199_254_740_992.0;

/// The grid integer of `v`, if `v` is exactly one (−0 is not: it escapes,
/// which keeps its sign bit).
fn grid(v: f64) -> Option<i64> {
    let q = v * SCALE;
    if !(q.is_finite() && q.abs() <= MAX_GRID && q.fract() == 0.0) {
        return None;
    }
    let q = q as i64;
    // Decoding gives (q as f64) / SCALE; only a value that comes back with
    // the same bits is on the grid.
    ((q as f64 / SCALE).to_bits() == v.to_bits()).then_some(q)
}

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Prediction order per field, from how the field moves: steering is
/// smooth, so its next value is extrapolated from the last two (order 2);
/// pedals, clutch and gear hold still and jump, so the last value is the
/// best guess (order 1).
const ORDER: [u8; 6] = [ORDER_STEER, ORDER_THROTTLE, 1, 1, 1, 1];
const ORDER_STEER: u8 = 2;
const ORDER_THROTTLE: u8 = 2;

/// The grid value predicted from the last two (`p1` newest).
fn predict(order: u8, p1: i64, p2: i64) -> i64 {
    if order == 2 { 2 * p1 - p2 } else { p1 }
}

/// Appends the token streams of one car: field by field, step by step.
pub(crate) fn encode_car(inputs: &[CarInput], w: &mut Writer) {
    for (field, order) in ORDER.into_iter().enumerate() {
        let (mut p1, mut p2) = (0_i64, 0_i64);
        for input in inputs {
            let v = input.to_array()[field];
            match grid(v) {
                Some(q) => {
                    w.varint(zigzag(q - predict(order, p1, p2)) << 1);
                    (p2, p1) = (p1, q);
                }
                None => {
                    w.varint(1);
                    w.f64(v);
                }
            }
        }
    }
}

/// Reads one car's `steps` inputs back.
pub(crate) fn decode_car(r: &mut Reader<'_>, steps: usize) -> Result<Vec<CarInput>> {
    // Every token is at least one byte, so this allocation is bounded by the
    // decompressed section.
    if steps.saturating_mul(6) > r.remaining() {
        return Err(r.error(format!(
            "{steps} steps of inputs cannot fit in {} bytes",
            r.remaining()
        )));
    }
    // One allocation of the decoded size (48 bytes a step), filled field by
    // field in the order the tokens come.
    let mut inputs = vec![CarInput::default(); steps];
    for (field, order) in ORDER.into_iter().enumerate() {
        let (mut p1, mut p2) = (0_i64, 0_i64);
        for input in &mut inputs {
            let token = r.varint()?;
            let value = if token == 1 {
                let v = r.f64()?;
                if grid(v).is_some() {
                    return Err(r.error("escaped value lies on the grid: not canonical"));
                }
                v
            } else if token & 1 == 1 {
                return Err(r.error(format!("unknown input token {token}")));
            } else {
                let q = predict(order, p1, p2)
                    .checked_add(unzigzag(token >> 1))
                    .filter(|q| (*q as f64).abs() <= MAX_GRID)
                    .ok_or_else(|| r.error("input step leaves the exact range"))?;
                (p2, p1) = (p1, q);
                q as f64 / SCALE
            };
            *field_mut(input, field) = value;
        }
    }
    Ok(inputs)
}

/// Field `i` in `CarInput::to_array` order.
fn field_mut(input: &mut CarInput, i: usize) -> &mut f64 {
    match i {
        0 => &mut input.steer,
        1 => &mut input.throttle,
        2 => &mut input.brake,
        3 => &mut input.handbrake,
        4 => &mut input.clutch,
        _ => &mut input.gear,
    }
}

pub(super) fn encode_inputs(cars: &[CarTrack]) -> Writer {
    let mut raw = Writer::default();
    for car in cars {
        encode_car(&car.inputs, &mut raw);
    }
    deflated_section(raw)
}

/// The inputs section's declared inflated length, checked against what
/// the cars' steps (`car_steps`, per car) can need: each of a car-step's
/// six tokens takes one to ten bytes, so anything outside that range is
/// refused before inflating.
pub(super) fn inputs_raw_len(r: &mut Reader<'_>, car_steps: &[u64]) -> Result<usize> {
    let raw_len = r.u64()?;
    let tokens = car_steps
        .iter()
        .fold(0_u64, |sum, &n| sum.saturating_add(n))
        .saturating_mul(6);
    if raw_len < tokens || raw_len > tokens.saturating_mul(10) {
        return Err(r.error(format!(
            "declares {raw_len} inflated bytes for {tokens} input tokens"
        )));
    }
    usize::try_from(raw_len).map_err(|_| r.error("inputs too large"))
}

pub(super) fn decode_inputs(
    mut r: Reader<'_>,
    raw_len: usize,
    level: CanonicalLevel,
    car_steps: &[u64],
) -> Result<Vec<Vec<CarInput>>> {
    let at = r.offset();
    let compressed = r.take(r.remaining())?;
    let raw = inflate(compressed, raw_len, level, "inputs", at)?;
    let mut t = Reader::new(&raw, at, "inputs (inflated)");
    let mut cars = Vec::new();
    for &steps in car_steps {
        let steps = usize::try_from(steps).map_err(|_| t.error("too many steps"))?;
        cars.push(decode_car(&mut t, steps)?);
    }
    t.finish()?;
    Ok(cars)
}
