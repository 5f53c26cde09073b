//! What the fuzz targets share: a small deterministic generator and the scale of a run.
//!
//! Every target draws its inputs from fixed seeds, so a failure reproduces (and prints its
//! input). `GPUCC_FUZZ_SCALE=N` runs N times as many inputs, `GPUCC_FUZZ_SEED=S` moves
//! every seed to other inputs; `scripts/fuzz` runs the long version.

/// xorshift64*: a small deterministic generator, so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// The generator of one test: its own `base`, moved by `GPUCC_FUZZ_SEED`.
    pub fn for_test(base: u64) -> Rng {
        Rng::seeded(base ^ seed_offset().wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
    /// A generator from `seed` alone (not moved by `GPUCC_FUZZ_SEED`).
    pub fn seeded(seed: u64) -> Rng {
        // xorshift must not start at 0.
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
    /// True once in `one_in` draws.
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// `GPUCC_FUZZ_SEED` (0 when unset).
pub fn seed_offset() -> u64 {
    std::env::var("GPUCC_FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// `n` inputs at scale 1, times `GPUCC_FUZZ_SCALE`.
pub fn scaled(n: usize) -> usize {
    let scale: usize = std::env::var("GPUCC_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1);
    n * scale.max(1)
}

/// What one fuzz target's inputs took: how many ran, and the slowest, in seconds.
static TALLIES: std::sync::Mutex<Vec<(&'static str, usize, f64)>> =
    std::sync::Mutex::new(Vec::new());

/// Runs one input of `target`, counting it and its time.
pub fn timed<T>(target: &'static str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let result = f();
    let seconds = start.elapsed().as_secs_f64();
    let mut tallies = TALLIES.lock().unwrap_or_else(|e| e.into_inner());
    match tallies.iter_mut().find(|(t, _, _)| *t == target) {
        Some(entry) => {
            entry.1 += 1;
            entry.2 = entry.2.max(seconds);
        }
        None => tallies.push((target, 1, seconds)),
    }
    result
}

/// Prints `target`'s inputs so far and the slowest (`scripts/fuzz` reads the last line).
pub fn report(target: &'static str) {
    let tallies = TALLIES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, count, slowest)) = tallies.iter().find(|(t, _, _)| *t == target) {
        println!("{target}: {count} inputs so far, slowest {slowest:.2} s");
    }
}
