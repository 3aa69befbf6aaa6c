//! `SkidpadWorld`: a live world (cars, inputs, AI drivers, steps) and what
//! a host reads back after each step: poses, telemetry channels by id, the
//! world hash.

use std::ffi::c_char;

use skidpad_core::{
    CHANNEL_COUNT, CHANNELS, CarDefinition, CarId, Lod, LodSetting, SurfaceId, Wheel, World,
    WorldConfig, channel_index, preset,
};

use crate::args::{
    borrow, borrow_mut, borrow_optional, c_text, check_out, drop_handle, hand_out, text_bytes,
    write,
};
use crate::ground::{SkidpadGround, SkidpadTrack};
use crate::status::{Failure, SkidpadStatus, copy_text, guard, quietly};
use crate::values::{SkidpadHash, SkidpadInput, SkidpadPose, SkidpadStartPose};

/// A world of cars. One thread at a time may use it.
///
/// Transparent, so that a replay player can lend its own world as a
/// `const SkidpadWorld *` to every reading function here. (cbindgen would
/// write it as a typedef of the core's type; cbindgen.toml declares it.)
///
/// cbindgen:ignore
#[repr(transparent)]
pub struct SkidpadWorld {
    /// The world itself, for Rust code that shares a world with a C host.
    pub world: World,
}

impl SkidpadWorld {
    /// The handle a C caller sees for a world owned elsewhere (a player's).
    pub(crate) fn lend(world: &World) -> &SkidpadWorld {
        // SAFETY: `SkidpadWorld` is `repr(transparent)` over `World`.
        unsafe { &*std::ptr::from_ref(world).cast::<SkidpadWorld>() }
    }
}

/// How a car is simulated (level of detail).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkidpadLod {
    /// The four-wheel model with suspension (the default).
    Full = 0,
    /// The planar single-track model, for cars far from every camera.
    SingleTrack = 1,
    /// Not stepped: the car keeps its state's bits.
    Frozen = 2,
}

/// A wheel, in the core's order.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkidpadWheel {
    /// Front left.
    FrontLeft = 0,
    /// Front right.
    FrontRight = 1,
    /// Rear left.
    RearLeft = 2,
    /// Rear right.
    RearRight = 3,
}

fn car(id: u32) -> CarId {
    CarId::from_raw(id)
}

/// Enums arrive as integers, which a caller may have set to anything: a
/// Rust enum parameter holding another value would be undefined behaviour.
fn lod_of(raw: u32) -> Result<Lod, Failure> {
    u8::try_from(raw)
        .ok()
        .and_then(|code| Lod::from_code(code).ok())
        .ok_or_else(|| Failure::invalid(format!("level of detail {raw} is none of SKIDPAD_LOD_*")))
}

fn wheel_of(raw: u32) -> Result<Wheel, Failure> {
    u8::try_from(raw)
        .ok()
        .and_then(Wheel::from_index)
        .ok_or_else(|| Failure::invalid(format!("wheel {raw} is none of SKIDPAD_WHEEL_*")))
}

/// A new world on flat ground, with the default surfaces, gravity and air.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_new(out: *mut *mut SkidpadWorld) -> SkidpadStatus {
    guard(|| {
        check_out(out, "out")?;
        let world = World::new(WorldConfig::default())?;
        // SAFETY: checked; the caller's pointer.
        unsafe { hand_out(out, SkidpadWorld { world }, "out") }
    })
}

/// Frees a world; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_free(world: *mut SkidpadWorld) {
    // SAFETY: NULL or a world from this library, not used again.
    unsafe { drop_handle(world) }
}

/// Puts the world on a ground (a track's surface or a game's triangles).
/// Cars already in it are set down on it at their next step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_ground(
    world: *mut SkidpadWorld,
    ground: *const SkidpadGround,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handles.
        let (world, ground) = unsafe { (borrow_mut(world, "world")?, borrow(ground, "ground")?) };
        Ok(world.world.set_ground(ground.ground.clone())?)
    })
}

/// Adds a car of a built-in preset (`"fwd_hatchback"`, `"rwd_sports"`, …)
/// at `pose`; its id goes to `car_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_add_car_preset(
    world: *mut SkidpadWorld,
    preset_name: *const c_char,
    pose: *const SkidpadStartPose,
    car_out: *mut u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (world, name, pose) = unsafe {
            (
                borrow_mut(world, "world")?,
                c_text(preset_name, "preset_name")?,
                *borrow(pose, "pose")?,
            )
        };
        check_out(car_out, "car_out")?;
        let id = world.world.add_car(&preset(name)?, pose.into())?;
        // SAFETY: checked above.
        unsafe { write(car_out, id.to_raw(), "car_out") }
    })
}

/// Adds a car from a definition in JSON (`json_len` bytes of UTF-8, the
/// format of `sim-core/presets/*.json`) at `pose`; its id goes to `car_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_add_car_json(
    world: *mut SkidpadWorld,
    json: *const u8,
    json_len: usize,
    pose: *const SkidpadStartPose,
    car_out: *mut u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (world, json, pose) = unsafe {
            (
                borrow_mut(world, "world")?,
                text_bytes(json, json_len, "json")?,
                *borrow(pose, "pose")?,
            )
        };
        check_out(car_out, "car_out")?;
        let definition = CarDefinition::from_json(json)?;
        let id = world.world.add_car(&definition, pose.into())?;
        // SAFETY: checked above.
        unsafe { write(car_out, id.to_raw(), "car_out") }
    })
}

/// Removes a car; its id is never given out again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_remove_car(
    world: *mut SkidpadWorld,
    car_id: u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let world = unsafe { borrow_mut(world, "world") }?;
        world.world.remove_car(car(car_id))?;
        Ok(())
    })
}

/// Puts a car down at `pose` before the next step (a game's reset after a
/// crash); a replay records it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_reset_car(
    world: *mut SkidpadWorld,
    car_id: u32,
    pose: *const SkidpadStartPose,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (world, pose) = unsafe { (borrow_mut(world, "world")?, *borrow(pose, "pose")?) };
        Ok(world.world.reset_car(car(car_id), pose.into())?)
    })
}

/// Sets a car's controls for the next steps. Non-finite values are refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_input(
    world: *mut SkidpadWorld,
    car_id: u32,
    input: *const SkidpadInput,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (world, input) = unsafe { (borrow_mut(world, "world")?, *borrow(input, "input")?) };
        Ok(world.world.set_input(car(car_id), input.into())?)
    })
}

/// A car's controls as they last ran (an AI driver's included).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_input(
    world: *const SkidpadWorld,
    car_id: u32,
    out: *mut SkidpadInput,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let input = world.world.input(car(car_id))?;
        // SAFETY: the caller's pointer.
        unsafe { write(out, input.into(), "out") }
    })
}

/// Hands a car to the built-in AI driver on `track` (which the world keeps
/// a share of), or back to the host's inputs when `track` is NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_driver(
    world: *mut SkidpadWorld,
    car_id: u32,
    track: *const SkidpadTrack,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers; `track` may be NULL.
        let (world, track) = unsafe {
            (
                borrow_mut(world, "world")?,
                borrow_optional(track, "track")?,
            )
        };
        Ok(world
            .world
            .set_driver(car(car_id), track.map(|t| t.track.clone()))?)
    })
}

/// Sets a car's level of detail (`lod`, a `SkidpadLod`); `rate_hz` is its
/// substep rate, or 0 for the rate its definition gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_lod(
    world: *mut SkidpadWorld,
    car_id: u32,
    lod: u32,
    rate_hz: f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let world = unsafe { borrow_mut(world, "world") }?;
        let level = lod_of(lod)?;
        let setting = if rate_hz == 0.0 {
            LodSetting::new(level)
        } else {
            LodSetting::with_rate(level, rate_hz)
        };
        Ok(world.world.set_lod(car(car_id), setting)?)
    })
}

/// Sets the surface (an index into the world's surface table: 0 dry
/// asphalt, 1 wet, 2 gravel, 3 grass, 4 sand, 5 snow, 6 ice, 7 kerb) under
/// all four wheels of a car, for worlds whose ground carries none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_surface(
    world: *mut SkidpadWorld,
    car_id: u32,
    surface: u8,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let world = unsafe { borrow_mut(world, "world") }?;
        Ok(world.world.set_surface(car(car_id), SurfaceId(surface))?)
    })
}

/// Sets the surface under one wheel (`wheel`, a `SkidpadWheel`) of a car.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_set_wheel_surface(
    world: *mut SkidpadWorld,
    car_id: u32,
    wheel: u32,
    surface: u8,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let world = unsafe { borrow_mut(world, "world") }?;
        let wheel = wheel_of(wheel)?;
        Ok(world
            .world
            .set_wheel_surface(car(car_id), wheel, SurfaceId(surface))?)
    })
}

/// Steps every car by `dt` seconds, in (0, 0.25]: a game's frame time or
/// its fixed step (a replay records it exactly).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_step(world: *mut SkidpadWorld, dt: f64) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let world = unsafe { borrow_mut(world, "world") }?;
        Ok(world.world.step(dt)?)
    })
}

/// The number of cars in the world.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_car_count(
    world: *const SkidpadWorld,
    out: *mut usize,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(world, "world")?.world.car_count(), "out") }
    })
}

/// Copies the cars' ids, in the order they are stepped and hashed, to
/// `ids` (room for `capacity`); `count_out` gets the number of cars. With
/// too little room nothing is copied and the status says so, with the
/// count written: call again with that much room.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_car_ids(
    world: *const SkidpadWorld,
    ids: *mut u32,
    capacity: usize,
    count_out: *mut usize,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let count = world.world.car_count();
        // SAFETY: the caller's pointer.
        unsafe { write(count_out, count, "count_out") }?;
        if capacity < count {
            return Err(Failure::new(
                SkidpadStatus::BufferTooSmall,
                format!("ids has room for {capacity} ids; the world holds {count} cars"),
            ));
        }
        check_out(ids, "ids")?;
        for (k, id) in world.world.car_ids().enumerate() {
            // SAFETY: `ids` has room for `capacity` ≥ `count` ids.
            unsafe { ids.add(k).write(id.to_raw()) };
        }
        Ok(())
    })
}

/// Steps taken since the world was made.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_step_count(
    world: *const SkidpadWorld,
    out: *mut u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(world, "world")?.world.step_count(), "out") }
    })
}

/// A car's pose after the last step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_pose(
    world: *const SkidpadWorld,
    car_id: u32,
    out: *mut SkidpadPose,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let pose = world.world.pose(car(car_id))?;
        // SAFETY: the caller's pointer.
        unsafe { write(out, pose.into(), "out") }
    })
}

/// A car's speed over ground after the last step, m/s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_speed(
    world: *const SkidpadWorld,
    car_id: u32,
    out: *mut f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let speed = world.world.pose(car(car_id))?.speed;
        // SAFETY: the caller's pointer.
        unsafe { write(out, speed, "out") }
    })
}

/// One telemetry channel of a car after the last step, by the channel's id
/// (`skidpad_channel_index`; ids never change meaning, CHANNELS.md lists
/// them).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_channel(
    world: *const SkidpadWorld,
    car_id: u32,
    channel: u32,
    out: *mut f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let values = world.world.telemetry(car(car_id))?;
        let value = *values.get(channel as usize).ok_or_else(|| {
            Failure::invalid(format!(
                "channel {channel} is not below skidpad_channel_count() = {CHANNEL_COUNT}"
            ))
        })?;
        // SAFETY: the caller's pointer.
        unsafe { write(out, value, "out") }
    })
}

/// Every telemetry channel of a car, in id order, into `values` (room for
/// `capacity` ≥ `skidpad_channel_count()` doubles).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_telemetry(
    world: *const SkidpadWorld,
    car_id: u32,
    values: *mut f64,
    capacity: usize,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let telemetry = world.world.telemetry(car(car_id))?;
        if capacity < telemetry.len() {
            return Err(Failure::new(
                SkidpadStatus::BufferTooSmall,
                format!(
                    "values has room for {capacity}; there are {} channels",
                    telemetry.len()
                ),
            ));
        }
        check_out(values, "values")?;
        // SAFETY: room for `capacity` ≥ len doubles, by the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(telemetry.as_ptr(), values, telemetry.len()) };
        Ok(())
    })
}

/// The world hash: blake3 over every car's state in id order and the step
/// count. Equal hashes on two machines mean equal worlds, bit for bit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_world_hash(
    world: *const SkidpadWorld,
    out: *mut SkidpadHash,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let world = unsafe { borrow(world, "world") }?;
        let bytes = world.world.world_hash();
        // SAFETY: the caller's pointer.
        unsafe { write(out, SkidpadHash { bytes }, "out") }
    })
}

/// The number of telemetry channels (ids 0 to this − 1).
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_channel_count() -> u32 {
    CHANNEL_COUNT as u32
}

/// The id of the channel named `name` (`"speed"`, `"engine_rpm"`, …).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_channel_index(
    name: *const c_char,
    out: *mut u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's string.
        let name = unsafe { c_text(name, "name") }?;
        let index = channel_index(name)
            .ok_or_else(|| Failure::invalid(format!("no telemetry channel is named {name:?}")))?;
        // SAFETY: the caller's pointer.
        unsafe { write(out, index as u32, "out") }
    })
}

/// Copies channel `channel`'s name into `buffer` (the rules of text
/// outputs in README.md) and returns the bytes it needs, NUL included;
/// 0 for an id that names no channel.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_channel_name(
    channel: u32,
    buffer: *mut c_char,
    capacity: usize,
) -> usize {
    quietly(0, || {
        CHANNELS.get(channel as usize).map_or(0, |c| {
            // SAFETY: the caller's buffer.
            unsafe { copy_text(c.name, buffer, capacity) }
        })
    })
}
