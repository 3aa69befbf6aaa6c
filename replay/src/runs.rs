//! `Runs<T>`: a per-step value stored as runs of equal values (dt, level of
//! detail, wheel surfaces rarely change).

/// One value per step, stored as (start step, value) runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Runs<T> {
    /// First step of each run, strictly rising, the first 0.
    starts: Vec<u64>,
    values: Vec<T>,
    /// The last of `values`, kept beside the vectors: a recorder pushes to
    /// five of these per car and step, and comparing with a copy here
    /// spares a load from each vector's far end (its own cache line) when
    /// the value has not changed, which is nearly always.
    last: Option<T>,
    /// Total number of steps.
    len: u64,
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Runs {
            starts: Vec::new(),
            values: Vec::new(),
            last: None,
            len: 0,
        }
    }
}

impl<T: Copy + PartialEq> Runs<T> {
    /// An empty sequence.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the value of the next step.
    pub fn push(&mut self, value: T) {
        if self.last != Some(value) {
            self.starts.push(self.len);
            self.values.push(value);
            self.last = Some(value);
        }
        self.len += 1;
    }

    /// The value at `step`, or None past the end.
    #[must_use]
    pub fn at(&self, step: u64) -> Option<T> {
        if step >= self.len {
            return None;
        }
        let i = self.starts.partition_point(|&s| s <= step) - 1;
        Some(self.values[i])
    }

    /// Keeps the first `len` steps (a rewound recording drops the rest).
    pub fn truncate(&mut self, len: u64) {
        if len >= self.len {
            return;
        }
        let keep = self.starts.partition_point(|&s| s < len);
        self.starts.truncate(keep);
        self.values.truncate(keep);
        self.last = self.values.last().copied();
        self.len = len;
    }

    /// Number of steps.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when no step is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The runs as (length, value), in order.
    pub fn runs(&self) -> impl Iterator<Item = (u64, T)> + '_ {
        self.starts.iter().enumerate().map(|(i, &start)| {
            let end = self.starts.get(i + 1).copied().unwrap_or(self.len);
            (end - start, self.values[i])
        })
    }

    /// Number of runs.
    #[must_use]
    pub fn run_count(&self) -> usize {
        self.values.len()
    }

    /// Rebuilds from (length, value) runs. Canonical form only: every
    /// length positive and neighbouring values different; otherwise the
    /// reason is returned.
    pub fn from_runs(runs: impl IntoIterator<Item = (u64, T)>) -> Result<Self, String> {
        let mut out = Runs::new();
        for (length, value) in runs {
            if length == 0 {
                return Err("a run of length 0".into());
            }
            if out.last == Some(value) {
                return Err("two neighbouring runs hold the same value".into());
            }
            out.starts.push(out.len);
            out.values.push(value);
            out.last = Some(value);
            out.len = out
                .len
                .checked_add(length)
                .ok_or_else(|| "run lengths overflow".to_owned())?;
        }
        Ok(out)
    }
}
