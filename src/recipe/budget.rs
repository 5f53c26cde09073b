//! What one run of a recipe may spend, from the running command's [`crate::limits`]: steps,
//! the longest string, the largest table, and nesting. Recipes are programs that users
//! share, so a recipe that loops forever, doubles a string, or nests a million levels deep
//! stops with an error that names the limit (and `--limit NAME=N` to raise it), where it
//! would otherwise hang, exhaust the memory or overflow the stack.
//!
//! Everything that costs time or memory costs steps: a statement run or an expression
//! evaluated costs one, building a string one per [`BYTES_PER_STEP`] bytes, making a table
//! one per entry, and a command [`COMMAND_STEPS`] ([`CODE_STEPS`] for `print_code`).
//! Values share their strings and tables, so the memory a recipe holds is bounded by the
//! steps it ran (tens of bytes a step).

use crate::limits::Limits;

/// Building a string costs one step per this many bytes (the copy of a 1 MiB string costs
/// 16384 steps), so that appending in a loop, which copies the string every time, stops
/// at the step limit after a few hundred megabytes copied instead of running for hours.
pub const BYTES_PER_STEP: usize = 64;

/// Steps a command costs (`print` excepted): it runs isl (dependences, legality) or
/// records a declaration, milliseconds (`permute` on the 64 x 64 matrix product: 18 ms in
/// a release build) where a step takes about 0.1 microsecond. With the default limit, a
/// recipe may run 200 commands; the shipped recipes run at most 15, and a recipe the
/// strategy generator writes, a few per loop nest.
pub const COMMAND_STEPS: u64 = 50_000;

/// Steps `print_code` costs: it generates the code of the whole program (70 ms for the
/// 64 x 64 matrix product in a release build), so that a recipe may print the code 50
/// times with the default limit.
pub const CODE_STEPS: u64 = 200_000;

/// Stack the interpreter may use for nesting, measured from where the run starts. The
/// recipe-depth limit bounds nesting first at its default (200 levels take less than
/// this); raised far beyond, this keeps the stack from overflowing: threads get 2 MiB by
/// default (the tuner's workers run recipes), and commands at the deepest level need
/// their own stack below it.
const STACK_BUDGET: usize = 512 * 1024;

/// The limit a recipe reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exceeded {
    Steps,
    /// A string of this many bytes.
    String(u64),
    /// A table of this many entries.
    Table(u64),
    Depth,
    /// Nesting that would overflow the stack before reaching the depth limit.
    Stack(u64),
}

/// The limits of a run and what it has spent so far.
pub struct Budget {
    pub limits: Limits,
    steps: u64,
    depth: u64,
    stack_base: usize,
}

impl Budget {
    /// A budget for a run that starts in the caller's stack frame.
    pub fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            steps: 0,
            depth: 0,
            stack_base: stack_address(),
        }
    }

    /// Spends `n` steps.
    pub fn steps(&mut self, n: u64) -> Result<(), Exceeded> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.recipe_steps {
            return Err(Exceeded::Steps);
        }
        Ok(())
    }

    /// Checks a string of `bytes` bytes before it is built, and spends its steps.
    pub fn string(&mut self, bytes: usize) -> Result<(), Exceeded> {
        self.fits_string(bytes)?;
        self.steps((bytes / BYTES_PER_STEP) as u64)
    }

    /// Checks that a string may grow to `bytes` bytes (the steps of what it grows by are
    /// the caller's to spend).
    pub fn fits_string(&self, bytes: usize) -> Result<(), Exceeded> {
        let bytes = bytes as u64;
        if bytes > self.limits.recipe_string_bytes {
            return Err(Exceeded::String(bytes));
        }
        Ok(())
    }

    /// Checks that a table may grow to `entries` entries, and spends one step for each of
    /// the `added` entries.
    pub fn table(&mut self, entries: u64, added: u64) -> Result<(), Exceeded> {
        if entries > self.limits.recipe_table_entries {
            return Err(Exceeded::Table(entries));
        }
        self.steps(added)
    }

    /// Enters one level of nesting (a statement inside another, an expression inside
    /// another or inside a statement); [`Budget::leave`] leaves it.
    pub fn enter(&mut self) -> Result<(), Exceeded> {
        if self.depth >= self.limits.recipe_depth {
            return Err(Exceeded::Depth);
        }
        if stack_address().abs_diff(self.stack_base) > STACK_BUDGET {
            return Err(Exceeded::Stack(self.depth));
        }
        self.depth += 1;
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// An address in the caller's stack frame: the distance between two of them is the stack
/// used between the two calls (whichever way the stack grows).
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Budget {
        Budget::new(Limits {
            recipe_steps: 100,
            recipe_string_bytes: 1000,
            recipe_table_entries: 10,
            recipe_depth: 3,
            ..Limits::default()
        })
    }

    #[test]
    fn each_limit_is_checked() {
        let mut b = small();
        assert_eq!(b.steps(100), Ok(()));
        assert_eq!(b.steps(1), Err(Exceeded::Steps));
        let mut b = small();
        assert_eq!(b.string(1000), Ok(()));
        assert_eq!(b.steps, 1000 / 64);
        assert_eq!(b.string(1001), Err(Exceeded::String(1001)));
        assert_eq!(b.table(11, 1), Err(Exceeded::Table(11)));
        assert_eq!(b.table(10, 10), Ok(()));
        for _ in 0..3 {
            assert_eq!(b.enter(), Ok(()));
        }
        assert_eq!(b.enter(), Err(Exceeded::Depth));
        b.leave();
        assert_eq!(b.enter(), Ok(()));
    }

    #[test]
    fn the_stack_is_guarded_whatever_the_depth_limit() {
        fn nest(b: &mut Budget) -> Result<(), Exceeded> {
            let padding = std::hint::black_box([0u8; 1024]);
            b.enter()?;
            let r = nest(b);
            b.leave();
            std::hint::black_box(padding);
            r
        }
        let mut b = Budget::new(Limits {
            recipe_depth: u64::MAX,
            ..Limits::default()
        });
        assert!(matches!(nest(&mut b), Err(Exceeded::Stack(levels)) if levels > 100));
    }
}
