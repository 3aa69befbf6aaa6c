//! The four handling runs, measured and simulated: the measured traces
//! resampled, and a car driven open loop through the measured hand-wheel
//! trace at the test's speed, gear held and speed held, as NHTSA drove it.

use skidpad_core::{CarDefinition, CarInput, InitialPose, Result, ShiftMode, World, WorldConfig};

use super::trace::{Recording, Trace};

/// Samples per second of both sides of a comparison (the metrics read
/// response times to hundredths of a second).
pub const SAMPLE_HZ: f64 = 100.0;

/// Seconds the car runs straight at the test speed before the measured
/// trace starts, to settle on its suspension.
const SETTLE: f64 = 2.0;

/// One of the handling runs in `examples/data/jeep-cherokee/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manoeuvre {
    /// Slowly increasing steer at 11 m/s.
    Sis,
    /// Step steer of about 160° at 12 m/s.
    Step,
    /// Double lane change at 12 m/s.
    Lc12,
    /// Double lane change at 22.5 m/s.
    Lc22,
}

/// The measured files of one manoeuvre: hand wheel, ay, yaw rate, roll
/// front and rear.
struct Files {
    hand_wheel: &'static str,
    lateral: &'static str,
    yaw_rate: &'static str,
    roll_front: &'static str,
    roll_rear: &'static str,
}

macro_rules! files {
    ($m:literal) => {
        Files {
            hand_wheel: include_str!(concat!(
                "../../data/jeep-cherokee/",
                $m,
                "_handwheel_exp.csv"
            )),
            lateral: include_str!(concat!("../../data/jeep-cherokee/", $m, "_ay_exp.csv")),
            yaw_rate: include_str!(concat!("../../data/jeep-cherokee/", $m, "_yawrate_exp.csv")),
            roll_front: include_str!(concat!("../../data/jeep-cherokee/", $m, "_roll_front.csv")),
            roll_rear: include_str!(concat!("../../data/jeep-cherokee/", $m, "_roll_rear.csv")),
        }
    };
}

impl Manoeuvre {
    /// Every run, in the README's order.
    pub const ALL: [Manoeuvre; 4] = [
        Manoeuvre::Sis,
        Manoeuvre::Step,
        Manoeuvre::Lc12,
        Manoeuvre::Lc22,
    ];

    /// The data's name for the run.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Manoeuvre::Sis => "sis",
            Manoeuvre::Step => "step",
            Manoeuvre::Lc12 => "lc12",
            Manoeuvre::Lc22 => "lc22",
        }
    }

    /// The test's constant speed, m/s.
    #[must_use]
    pub fn speed(self) -> f64 {
        match self {
            Manoeuvre::Sis => 11.0,
            Manoeuvre::Step | Manoeuvre::Lc12 => 12.0,
            Manoeuvre::Lc22 => 22.5,
        }
    }

    fn files(self) -> Files {
        match self {
            Manoeuvre::Sis => files!("sis"),
            Manoeuvre::Step => files!("step"),
            Manoeuvre::Lc12 => files!("lc12"),
            Manoeuvre::Lc22 => files!("lc22"),
        }
    }

    /// The measured hand-wheel trace.
    ///
    /// # Panics
    /// Never for the files kept in the repository (a test reads them all).
    #[must_use]
    pub fn hand_wheel(self) -> Trace {
        Trace::parse(self.files().hand_wheel).expect("the kept hand-wheel file reads")
    }

    /// The measured run, resampled where every channel has data; roll is
    /// the mean of the front and rear sensors (the frame twists, the
    /// model's body does not).
    ///
    /// # Panics
    /// Never for the files kept in the repository.
    #[must_use]
    pub fn measured(self) -> Recording {
        let files = self.files();
        let read = |csv: &str| Trace::parse(csv).expect("the kept data files read");
        let traces = [
            read(files.hand_wheel),
            read(files.lateral),
            read(files.yaw_rate),
            read(files.roll_front),
            read(files.roll_rear),
        ];
        let start = traces.iter().map(Trace::start).fold(f64::MIN, f64::max);
        let end = traces.iter().map(Trace::end).fold(f64::MAX, f64::min);
        let dt = 1.0 / SAMPLE_HZ;
        let count = ((end - start) * SAMPLE_HZ).floor() as usize + 1;
        let mut recording = Recording {
            start,
            dt,
            ..Recording::default()
        };
        for i in 0..count {
            let t = start + i as f64 * dt;
            recording.hand_wheel.push(traces[0].at(t));
            recording.lateral.push(traces[1].at(t));
            recording.yaw_rate.push(traces[2].at(t));
            recording
                .roll
                .push(0.5 * (traces[3].at(t) + traces[4].at(t)));
            recording.speed.push(self.speed());
        }
        recording
    }
}

/// The forward gear whose engine speed at `speed` is nearest 2000 rpm: a
/// gear the automatic box would hold cruising there.
fn held_gear(def: &CarDefinition, speed: f64) -> usize {
    let wheel_rpm = speed / def.wheels.rear.radius * 60.0 / (2.0 * core::f64::consts::PI);
    let rpm = |ratio: f64| wheel_rpm * ratio * def.gearbox.final_drive;
    (0..def.gearbox.ratios.len())
        .min_by(|&a, &b| {
            let gap = |g: usize| (rpm(def.gearbox.ratios[g]) - 2000.0).abs();
            gap(a).total_cmp(&gap(b))
        })
        .unwrap_or(0)
}

/// Drives `def` through `manoeuvre`'s measured hand-wheel trace at the
/// test's speed: the gear held (a manual box in the gear the automatic
/// would cruise in) and the speed held by a throttle controller, as the
/// test drivers held it; over the trace's span, sampled as the measured
/// recording is.
///
/// # Errors
/// The definition is refused, or the simulation fails.
pub fn drive(def: &CarDefinition, manoeuvre: Manoeuvre) -> Result<Recording> {
    drive_at(def, manoeuvre, manoeuvre.speed())
}

/// [`drive`] at `speed`, m/s, in place of the README's: to ask how much a
/// figure owes to the speed the run was held at.
///
/// # Errors
/// The definition is refused, or the simulation fails.
pub fn drive_at(def: &CarDefinition, manoeuvre: Manoeuvre, speed: f64) -> Result<Recording> {
    let mut car = def.clone();
    let gear = held_gear(&car, speed);
    car.gearbox.mode = ShiftMode::Manual;
    let mut world = World::new(WorldConfig::default())?;
    let id = world.add_car(
        &car,
        InitialPose {
            speed,
            ..InitialPose::default()
        },
    )?;
    let trace = manoeuvre.hand_wheel();
    let measured = manoeuvre.measured();
    let dt = 1.0 / SAMPLE_HZ;
    let lock_deg = car.steering.feel.hand_wheel_lock.to_degrees();
    let settle = (SETTLE * SAMPLE_HZ) as usize;
    let mut integral = 0.0;
    let mut recording = Recording {
        start: measured.start,
        dt,
        ..Recording::default()
    };
    for k in 0..settle + measured.len() {
        // Sample k − settle is taken after this step, at its end; the
        // step steers with the hand wheel at its middle.
        let t = measured.start + (k as f64 - settle as f64) * dt;
        let hand_wheel = trace.at(t - 0.5 * dt);
        let v = world.channel(id, "speed")?;
        let error = speed - v;
        integral = (integral + error * dt).clamp(-2.0, 2.0);
        let drive = 0.3 * error + 0.2 * integral;
        let input = CarInput {
            // The input is positive right; the hand wheel positive left.
            steer: (-hand_wheel / lock_deg).clamp(-1.0, 1.0),
            throttle: drive.clamp(0.0, 1.0),
            brake: (-drive - 0.5).clamp(0.0, 1.0),
            gear: gear as f64 + 1.0,
            ..CarInput::default()
        };
        world.set_input(id, input)?;
        world.step(dt)?;
        if k >= settle {
            recording.hand_wheel.push(trace.at(t));
            recording.lateral.push(world.channel(id, "ay")?);
            recording
                .yaw_rate
                .push(world.channel(id, "yaw_rate")?.to_degrees());
            // The model's roll is positive right side down; the
            // measurements' is negative in a left turn, when the body
            // leans right: the opposite sign.
            recording
                .roll
                .push(-world.channel(id, "roll")?.to_degrees());
            recording.speed.push(world.channel(id, "speed")?);
        }
    }
    Ok(recording)
}
