//! The sandbox: wasmtime configured so an archived core computes the bits
//! it computed natively (NaNs canonicalised, no relaxed SIMD, no threads)
//! and can spend no more than its budget (fuel for CPU, a cap on linear
//! memory). Each call runs in a fresh instance: nothing survives between
//! two replays.

use serde::de::DeserializeOwned;
use skidpad_replay::Limits;
use wasmtime::{
    Config, Engine, Instance, Memory, Module, Store, StoreLimits, StoreLimitsBuilder, Trap,
    TypedFunc,
};

use crate::archive::{ABI_VERSION, ArchivedCore};
use crate::error::{CoresError, Result};
use crate::verdict::{ArchivedHeader, ArchivedVerdict};

/// What one call into an archived core may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SandboxBudget {
    /// Steps the replay may declare.
    pub max_steps: u64,
    /// Cars the replay may declare.
    pub max_cars: u32,
    /// Car-steps (steps × cars) the replay may declare; checked by the core
    /// from the header before it simulates anything.
    pub max_car_steps: u64,
    /// Fuel (about one unit per wasm instruction) per declared car-step,
    /// on top of [`SandboxBudget::base_fuel`]: the CPU the core may spend.
    pub fuel_per_car_step: u64,
    /// Fuel for decoding and setting up, whatever the replay's length.
    pub base_fuel: u64,
    /// The most fuel any one replay may burn, whatever it declares.
    pub max_fuel: u64,
    /// The most linear memory the instance may grow to, in bytes.
    pub memory_bytes: usize,
}

impl Default for SandboxBudget {
    /// The share of the native default limits ([`Limits::DEFAULT`]).
    fn default() -> Self {
        SandboxBudget::from_limits(&Limits::DEFAULT)
    }
}

/// A generous price of one car-substep in fuel: the archived cores spend
/// 10⁴ to 1.5·10⁴ (BENCHMARKS.md), so this never stops an honest replay that
/// the native limits would let through.
const FUEL_PER_CAR_SUBSTEP: u64 = 20_000;

impl SandboxBudget {
    /// The sandbox's share of the native work limits: as many car-steps
    /// as the limits allow cars × steps (each car-step is at least one
    /// substep, so never more than their car-substeps), and at most the
    /// fuel those car-substeps cost.
    #[must_use]
    pub fn from_limits(limits: &Limits) -> SandboxBudget {
        let car_steps = limits
            .max_steps
            .saturating_mul(u64::from(limits.max_cars))
            .min(limits.max_car_substeps);
        SandboxBudget {
            max_steps: limits.max_steps,
            max_cars: limits.max_cars,
            max_car_steps: car_steps,
            // Room for 100 substeps per step at the dearest price.
            fuel_per_car_step: 100 * FUEL_PER_CAR_SUBSTEP,
            // Decoding and building the world: a few hundred million
            // instructions for the largest replays the decoders accept.
            base_fuel: 4_000_000_000,
            max_fuel: limits.max_car_substeps.saturating_mul(FUEL_PER_CAR_SUBSTEP),
            memory_bytes: 1 << 30,
        }
    }

    /// Refuses a header that declares more than the budget: steps, cars,
    /// then their product.
    pub fn check_declared(&self, steps: u64, cars: u32) -> Result<()> {
        let over = |what, declared, budget| {
            Err(CoresError::DeclaredWork {
                what,
                declared,
                budget,
            })
        };
        if steps > self.max_steps {
            return over("steps", steps, self.max_steps);
        }
        if cars > self.max_cars {
            return over("cars", u64::from(cars), u64::from(self.max_cars));
        }
        let car_steps = steps.saturating_mul(u64::from(cars));
        if car_steps > self.max_car_steps {
            return over("car-steps", car_steps, self.max_car_steps);
        }
        Ok(())
    }

    /// The fuel a replay that declares `car_steps` may burn.
    #[must_use]
    pub fn fuel_for(&self, car_steps: u64) -> u64 {
        car_steps
            .saturating_mul(self.fuel_per_car_step)
            .saturating_add(self.base_fuel)
            .min(self.max_fuel)
    }
}

/// The wasm runtime, configured once: cheap to clone, shared by threads.
#[derive(Clone)]
pub struct Sandbox {
    engine: Engine,
}

impl Sandbox {
    /// A runtime with the determinism and metering settings above.
    pub fn new() -> Result<Sandbox> {
        let mut config = Config::new();
        // A NaN's payload is the one float result wasm leaves to the
        // machine; canonicalising it makes every platform agree.
        config.cranelift_nan_canonicalization(true);
        config.wasm_relaxed_simd(false);
        // (Threads are not even compiled in: wasmtime's `threads` feature is off.)
        config.consume_fuel(true);
        let engine = Engine::new(&config).map_err(|e| CoresError::Load {
            version: 0,
            reason: format!("the wasm runtime: {e}"),
        })?;
        Ok(Sandbox { engine })
    }

    /// Checks `core`'s bytes against the manifest, then compiles it.
    pub fn load(&self, core: &ArchivedCore) -> Result<LoadedCore> {
        let version = core.entry().version;
        let bytes = core.module_bytes()?;
        let module = Module::new(&self.engine, &bytes).map_err(|e| CoresError::Load {
            version,
            reason: e.to_string(),
        })?;
        self.checked(version, module)
    }

    /// The module compiled ahead of time, for a cache on disk
    /// ([`Sandbox::load_precompiled`]).
    pub fn precompile(&self, core: &ArchivedCore) -> Result<Vec<u8>> {
        let version = core.entry().version;
        let bytes = core.module_bytes()?;
        self.engine
            .precompile_module(&bytes)
            .map_err(|e| CoresError::Load {
                version,
                reason: e.to_string(),
            })
    }

    /// A core from [`Sandbox::precompile`]'s output, skipping Cranelift.
    ///
    /// # Safety
    /// `compiled` is machine code: it must come from `precompile` on a
    /// sandbox of this build, kept where nobody else can write (wasmtime
    /// checks the engine's settings but cannot check the code itself).
    pub unsafe fn load_precompiled(&self, version: u32, compiled: &[u8]) -> Result<LoadedCore> {
        // SAFETY: the caller's contract above.
        let module = unsafe { Module::deserialize(&self.engine, compiled) }.map_err(|e| {
            CoresError::Load {
                version,
                reason: e.to_string(),
            }
        })?;
        self.checked(version, module)
    }

    fn checked(&self, version: u32, module: Module) -> Result<LoadedCore> {
        let core = LoadedCore {
            engine: self.engine.clone(),
            module,
            version,
        };
        let budget = SandboxBudget::default();
        let mut call = core.instantiate(budget, budget.base_fuel)?;
        let abi = call
            .get::<(), u32>("skidpad_abi_version")?
            .call(&mut call.store, ());
        let simulated = call
            .get::<(), u32>("skidpad_simulation_version")?
            .call(&mut call.store, ());
        match (abi, simulated) {
            (Ok(ABI_VERSION), Ok(v)) if v == version => Ok(core),
            (abi, simulated) => Err(CoresError::Abi {
                version,
                reason: format!(
                    "it reports ABI {abi:?} and simulation version {simulated:?}; expected ABI {ABI_VERSION}, version {version}"
                ),
            }),
        }
    }
}

/// A compiled archived core, ready for calls.
#[derive(Clone)]
pub struct LoadedCore {
    engine: Engine,
    module: Module,
    version: u32,
}

/// One fresh instance and its store, for one call.
struct Call {
    store: Store<StoreLimits>,
    instance: Instance,
    memory: Memory,
    version: u32,
    fuel: u64,
}

impl Call {
    fn get<P, R>(&mut self, name: &str) -> Result<TypedFunc<P, R>>
    where
        P: wasmtime::WasmParams,
        R: wasmtime::WasmResults,
    {
        self.instance
            .get_typed_func::<P, R>(&mut self.store, name)
            .map_err(|e| CoresError::Abi {
                version: self.version,
                reason: format!("{name}: {e}"),
            })
    }

    /// A call's wasmtime error, named as what stopped the core.
    fn stopped(&self, error: &wasmtime::Error) -> CoresError {
        if matches!(error.downcast_ref::<Trap>(), Some(Trap::OutOfFuel)) {
            return CoresError::OutOfFuel {
                version: self.version,
                fuel: self.fuel,
            };
        }
        CoresError::Trapped {
            version: self.version,
            reason: format!("{error:#}"),
        }
    }

    /// Copies `bytes` into the instance and returns where they are.
    fn write_input(&mut self, bytes: &[u8]) -> Result<(u32, u32)> {
        let len = u32::try_from(bytes.len()).map_err(|_| CoresError::Trapped {
            version: self.version,
            reason: format!("{} bytes do not fit a 32-bit memory", bytes.len()),
        })?;
        let alloc = self.get::<u32, u32>("skidpad_alloc")?;
        let ptr = alloc
            .call(&mut self.store, len)
            .map_err(|e| self.stopped(&e))?;
        if ptr == 0 && len != 0 {
            return Err(CoresError::Trapped {
                version: self.version,
                reason: format!("it could not allocate {len} bytes under the memory cap"),
            });
        }
        self.memory
            .write(&mut self.store, ptr as usize, bytes)
            .map_err(|e| CoresError::Trapped {
                version: self.version,
                reason: e.to_string(),
            })?;
        Ok((ptr, len))
    }

    /// The bytes of the answer the last call left.
    fn answer_bytes(&mut self) -> Result<Vec<u8>> {
        let ptr = self
            .get::<(), u32>("skidpad_result_ptr")?
            .call(&mut self.store, ())
            .map_err(|e| self.stopped(&e))?;
        let len = self
            .get::<(), u32>("skidpad_result_len")?
            .call(&mut self.store, ())
            .map_err(|e| self.stopped(&e))?;
        self.memory
            .data(&self.store)
            .get(ptr as usize..(ptr as usize).saturating_add(len as usize))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| CoresError::Abi {
                version: self.version,
                reason: format!("its result ({len} bytes at {ptr}) lies outside its memory"),
            })
    }

    /// The answer the last call left: its JSON document, parsed as `T`
    /// when the status says answered, or the core's refusal.
    fn answer<T: DeserializeOwned>(&mut self, status: u32) -> Result<T> {
        let bytes = self.answer_bytes()?;
        let text = bytes.as_slice();
        let abi = |reason: String| CoresError::Abi {
            version: self.version,
            reason,
        };
        if status != 0 {
            #[derive(serde::Deserialize)]
            struct Refusal {
                error: String,
            }
            let refusal: Refusal = serde_json::from_slice(text)
                .map_err(|e| abi(format!("its refusal is not readable: {e}")))?;
            return Err(CoresError::Refused {
                version: self.version,
                reason: refusal.error,
            });
        }
        serde_json::from_slice(text).map_err(|e| abi(format!("its answer is not readable: {e}")))
    }
}

impl LoadedCore {
    /// The simulation version this core simulates.
    #[must_use]
    pub fn version(&self) -> u32 {
        self.version
    }

    fn instantiate(&self, budget: SandboxBudget, fuel: u64) -> Result<Call> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(budget.memory_bytes)
            .instances(1)
            .memories(1)
            .tables(4)
            .build();
        let mut store = Store::new(&self.engine, limits);
        store.limiter(|limits| limits);
        let load = |reason: String| CoresError::Load {
            version: self.version,
            reason,
        };
        // Instantiation runs the module's start code: it gets a little fuel
        // of its own, then the call's budget replaces it.
        store
            .set_fuel(budget.base_fuel)
            .map_err(|e| load(e.to_string()))?;
        let instance =
            Instance::new(&mut store, &self.module, &[]).map_err(|e| load(format!("{e:#}")))?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| CoresError::Abi {
                version: self.version,
                reason: "it exports no memory".into(),
            })?;
        store.set_fuel(fuel).map_err(|e| load(e.to_string()))?;
        Ok(Call {
            store,
            instance,
            memory,
            version: self.version,
            fuel,
        })
    }

    /// The replay's header as this core decodes it.
    pub fn inspect(&self, replay: &[u8]) -> Result<ArchivedHeader> {
        let budget = SandboxBudget::default();
        let mut call = self.instantiate(budget, budget.base_fuel)?;
        let (ptr, len) = call.write_input(replay)?;
        let inspect = call.get::<(u32, u32), u32>("skidpad_inspect")?;
        let status = inspect
            .call(&mut call.store, (ptr, len))
            .map_err(|e| call.stopped(&e))?;
        call.answer(status)
    }

    /// Re-simulates the replay inside the sandbox, within `budget`.
    /// `declared_car_steps` is what the header declares (the host reads it
    /// with today's decoder): it sets the fuel, and a replay declaring more
    /// than the budget is refused before the core is even instantiated.
    pub fn verify(
        &self,
        replay: &[u8],
        declared_car_steps: u64,
        budget: SandboxBudget,
    ) -> Result<ArchivedVerdict> {
        if declared_car_steps > budget.max_car_steps {
            return Err(CoresError::DeclaredWork {
                what: "car-steps",
                declared: declared_car_steps,
                budget: budget.max_car_steps,
            });
        }
        let mut call = self.instantiate(budget, budget.fuel_for(declared_car_steps))?;
        let (ptr, len) = call.write_input(replay)?;
        let verify = call.get::<(u32, u32, u64), u32>("skidpad_verify")?;
        let status = verify
            .call(&mut call.store, (ptr, len, budget.max_car_steps))
            .map_err(|e| call.stopped(&e))?;
        let mut verdict: ArchivedVerdict = call.answer(status)?;
        verdict.fuel_used = call.fuel - call.store.get_fuel().unwrap_or(0);
        Ok(verdict)
    }
}

/// One car's pose as an archived core reports it (`skidpad_pose_values`:
/// the exact doubles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArchivedPose {
    /// The car's index in the replay.
    pub car: u32,
    /// Body position, m.
    pub position: [f64; 3],
    /// Heading, rad.
    pub yaw: f64,
    /// Pitch, rad.
    pub pitch: f64,
    /// Roll, rad.
    pub roll: f64,
    /// Front wheels' steer angle, rad.
    pub steer: f64,
    /// Speed, m/s.
    pub speed: f64,
}

#[derive(serde::Deserialize)]
struct StepAnswer {
    step: u64,
}

/// A replay opened in an archived core for playback: seek to any step and
/// read every car's pose there, as a viewer does.
pub struct ArchivedPlayback {
    call: Call,
    header: ArchivedHeader,
}

impl LoadedCore {
    /// Opens `replay` for playback in a fresh instance with `budget`'s
    /// memory cap and its whole fuel ceiling (seeking re-simulates).
    pub fn open(&self, replay: &[u8], budget: SandboxBudget) -> Result<ArchivedPlayback> {
        let mut call = self.instantiate(budget, budget.max_fuel)?;
        let (ptr, len) = call.write_input(replay)?;
        let open = call.get::<(u32, u32), u32>("skidpad_open")?;
        let status = open
            .call(&mut call.store, (ptr, len))
            .map_err(|e| call.stopped(&e))?;
        let header = call.answer(status)?;
        Ok(ArchivedPlayback { call, header })
    }
}

impl ArchivedPlayback {
    /// The replay's header.
    #[must_use]
    pub fn header(&self) -> &ArchivedHeader {
        &self.header
    }

    /// Moves to `step` (clamped to the end); returns the step reached.
    pub fn seek(&mut self, step: u64) -> Result<u64> {
        let seek = self.call.get::<u64, u32>("skidpad_seek")?;
        let status = seek
            .call(&mut self.call.store, step)
            .map_err(|e| self.call.stopped(&e))?;
        Ok(self.call.answer::<StepAnswer>(status)?.step)
    }

    /// Every car's pose at the current step, in replay order; a car the
    /// world no longer holds (removed) is left out.
    pub fn poses(&mut self) -> Result<Vec<ArchivedPose>> {
        let cars = self.header.cars;
        let pose_values = self.call.get::<u32, u32>("skidpad_pose_values")?;
        let status = pose_values
            .call(&mut self.call.store, cars)
            .map_err(|e| self.call.stopped(&e))?;
        if status != 0 {
            // A refusal is JSON; its error is what this returns.
            return self
                .call
                .answer::<serde_json::Value>(status)
                .map(|_| Vec::new());
        }
        let bytes = self.call.answer_bytes()?;
        let values: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect();
        if values.len() != cars as usize * 8 {
            return Err(CoresError::Abi {
                version: self.call.version,
                reason: format!("{} pose values for {cars} cars", values.len()),
            });
        }
        Ok(values
            .chunks_exact(8)
            .zip(0..)
            .filter(|(v, _)| !v[0].is_nan())
            .map(|(v, car)| ArchivedPose {
                car,
                position: [v[0], v[1], v[2]],
                yaw: v[3],
                pitch: v[4],
                roll: v[5],
                steer: v[6],
                speed: v[7],
            })
            .collect())
    }
}
