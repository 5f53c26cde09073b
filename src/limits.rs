//! Resource limits: how much work a hostile or huge input may make a stage do before
//! gpucc stops with an error that names the limit and how to raise it (`--limit
//! NAME=VALUE`), instead of running for hours or exhausting memory.
//!
//! Each stage receives the [`Limits`] it needs in its options; the defaults are generous
//! for real loop codes and recipes (each default's reason is beside it).

use std::cell::Cell;

/// The limits of one run of gpucc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Recipe interpreter: steps (statements run, expressions evaluated, one per 64 bytes
    /// of string built, one per table entry made, 50 000 per command, 200 000 per
    /// `print_code`), so that an endless or quadratic recipe stops.
    pub recipe_steps: u64,
    /// Recipe interpreter: the longest string, in bytes.
    pub recipe_string_bytes: u64,
    /// Recipe interpreter: the most entries of one table.
    pub recipe_table_entries: u64,
    /// Recipe: the deepest nesting of statements and expressions (checked as the recipe is
    /// parsed and as it runs).
    pub recipe_depth: u64,
    /// Frontend: the deepest loop nest of a compiled unit.
    pub nest_depth: u64,
    /// Frontend: the most statements in a compiled unit.
    pub statements: u64,
    /// isl: the operations one isl context may perform (isl's own `max_operations`) before
    /// an analysis gives up as too complex.
    pub isl_operations: u64,
    /// isl's scheduler: milliseconds of processor time its search for one nest's order may
    /// take when the strategy generator tries it (a recipe's `reschedule` has
    /// `isl_operations`).
    pub scheduler_milliseconds: u64,
    /// The CPU check: seconds each of its programs (the C and the CUDA on the CPU) may run.
    pub check_seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // A shipped recipe runs a few hundred steps; the strategy generator's, fewer.
            recipe_steps: 10_000_000,
            recipe_string_bytes: 1 << 20,
            recipe_table_entries: 1 << 20,
            recipe_depth: 200,
            // PolyBench's deepest nest has 4 loops, a 6-D tensor contraction 6; a 12-deep
            // nest of one statement compiles in about 4 s, a 16-deep one in 11 s.
            nest_depth: 12,
            // PolyBench's largest unit (deriche) has about 30 statements. The strategy
            // generator's time grows with the square of the number of nests: 25 one-line
            // nests take 6 s to compile, 64 take 45 s, 100 take two minutes.
            statements: 64,
            // Every PolyBench/C 4.2.1 benchmark (MINI) compiles to the same CUDA with 10
            // million as with 200 million (and its dependences need under 5 million); one
            // computation spends about 3 million a second, so an input that needs more
            // stops within half a minute (200 million: nine minutes).
            isl_operations: 10_000_000,
            // The longest search of PolyBench/C 4.2.1 (LARGE) and the testsuite takes 0.26 s;
            // a fuzzed nest of three statements took 30 s, another over 25 minutes.
            scheduler_milliseconds: 2_000,
            check_seconds: 300,
        }
    }
}

/// One limit's name on the command line, what it bounds, and its field.
struct Named {
    name: &'static str,
    what: &'static str,
    field: fn(&mut Limits) -> &mut u64,
}

const NAMED: &[Named] = &[
    Named {
        name: "recipe-steps",
        what: "steps a recipe may run",
        field: |l| &mut l.recipe_steps,
    },
    Named {
        name: "recipe-string-bytes",
        what: "bytes of the longest string a recipe may build",
        field: |l| &mut l.recipe_string_bytes,
    },
    Named {
        name: "recipe-table-entries",
        what: "entries of the largest table a recipe may build",
        field: |l| &mut l.recipe_table_entries,
    },
    Named {
        name: "recipe-depth",
        what: "levels of nested statements and expressions in a recipe",
        field: |l| &mut l.recipe_depth,
    },
    Named {
        name: "nest-depth",
        what: "loops in the deepest nest of the compiled code",
        field: |l| &mut l.nest_depth,
    },
    Named {
        name: "statements",
        what: "statements in the compiled code",
        field: |l| &mut l.statements,
    },
    Named {
        name: "isl-operations",
        what: "operations of one isl computation (the dependences, a legality check; a tenth of them for one loop nest of the generated code)",
        field: |l| &mut l.isl_operations,
    },
    Named {
        name: "scheduler-milliseconds",
        what: "milliseconds of processor time isl's scheduler may search for a nest's order when gpucc writes the recipe",
        field: |l| &mut l.scheduler_milliseconds,
    },
    Named {
        name: "check-seconds",
        what: "seconds each program of a check may run",
        field: |l| &mut l.check_seconds,
    },
];

impl Limits {
    /// Sets the limit `name` (as on the command line: `recipe-steps`) to `value`.
    pub fn set(&mut self, name: &str, value: u64) -> Result<(), String> {
        match NAMED.iter().find(|n| n.name == name) {
            Some(n) => {
                *(n.field)(self) = value;
                Ok(())
            }
            None => Err(format!(
                "`{name}` is not a limit; the limits are: {}",
                NAMED.iter().map(|n| n.name).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// The value of the limit `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<u64> {
        let mut copy = *self;
        NAMED
            .iter()
            .find(|n| n.name == name)
            .map(|n| *(n.field)(&mut copy))
    }

    /// Every limit with its value and what it bounds (for `--help` and the README).
    pub fn describe(&self) -> Vec<(&'static str, u64, &'static str)> {
        NAMED
            .iter()
            .map(|n| (n.name, self.get(n.name).unwrap_or(0), n.what))
            .collect()
    }

    /// These limits with the recipe limits lifted, for the recipes gpucc writes itself: they
    /// are straight-line code of a few commands per loop nest, so they end, and a program
    /// with a hundred nests needs more commands than a user's recipe may run by default.
    pub fn for_own_recipes(self) -> Limits {
        Limits {
            recipe_steps: u64::MAX,
            recipe_string_bytes: u64::MAX,
            recipe_table_entries: u64::MAX,
            ..self
        }
    }

    /// The message of an input that reached the limit `name`: what was reached and how to
    /// raise it. `what` says what reached it ("the recipe", "the nest at line 3").
    pub fn exceeded(&self, name: &str, what: &str) -> (String, String) {
        let value = self.get(name).unwrap_or(0);
        let bound = NAMED.iter().find(|n| n.name == name).map_or("", |n| n.what);
        (
            format!("{what} reached the limit `{name}` ({value} {bound})"),
            format!("if the input is meant to be this large, raise the limit: --limit {name}=N"),
        )
    }
}

/// `--limit NAME=VALUE`: a limit's name and a positive whole number (`1e8` and `100M` are
/// not accepted; `100000000` and `100_000_000` are).
pub fn parse_limit(text: &str) -> Result<(String, u64), String> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(format!(
            "`{text}` has no value (expected NAME=VALUE, as `--limit recipe-steps=100000000`)"
        ));
    };
    let name = name.trim();
    Limits::default().set(name, 0)?;
    let digits: String = value.trim().chars().filter(|&c| c != '_').collect();
    match digits.parse::<u64>() {
        Ok(v) if v > 0 => Ok((name.to_string(), v)),
        _ => Err(format!(
            "`{text}`: a limit is a positive whole number (as `--limit {name}=100000000`)"
        )),
    }
}

thread_local! {
    static CURRENT: Cell<Limits> = Cell::new(Limits::default());
}

/// The limits of the command running on this thread (for code with no options to carry
/// them, such as every isl context's operation budget).
pub fn current() -> Limits {
    CURRENT.with(Cell::get)
}

/// Runs `f` with `limits` as this thread's [`current`] limits, restoring the previous ones
/// afterwards; threads that a stage spawns must set them again.
pub fn with<T>(limits: Limits, f: impl FnOnce() -> T) -> T {
    struct Restore(Limits);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(limits)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_set_by_name() {
        let mut l = Limits::default();
        l.set("recipe-steps", 5).unwrap();
        assert_eq!(l.recipe_steps, 5);
        assert_eq!(l.get("recipe-steps"), Some(5));
        assert!(l
            .set("recipe_steps", 5)
            .unwrap_err()
            .contains("recipe-steps"));
        assert_eq!(l.describe().len(), NAMED.len());
    }

    #[test]
    fn the_command_line_form_is_checked() {
        assert_eq!(
            parse_limit("check-seconds=600"),
            Ok(("check-seconds".into(), 600))
        );
        assert_eq!(
            parse_limit(" isl-operations = 1_000_000 "),
            Ok(("isl-operations".into(), 1_000_000))
        );
        assert!(parse_limit("check-seconds").is_err());
        assert!(parse_limit("check-seconds=0").is_err());
        assert!(parse_limit("check-seconds=-1").is_err());
        assert!(parse_limit("nothing=3")
            .unwrap_err()
            .contains("not a limit"));
    }

    #[test]
    fn current_limits_are_scoped() {
        let l = Limits {
            statements: 7,
            ..Limits::default()
        };
        assert_eq!(with(l, || current().statements), 7);
        assert_eq!(current(), Limits::default());
    }

    #[test]
    fn the_message_names_the_limit_and_how_to_raise_it() {
        let (message, hint) = Limits::default().exceeded("nest-depth", "the nest at line 3");
        assert!(message.contains("`nest-depth` (12 loops"), "{message}");
        assert!(hint.contains("--limit nest-depth=N"), "{hint}");
    }
}
