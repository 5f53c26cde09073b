//! The random-nest generator: valid affine loop nests, each compiled by gpucc with no recipe
//! (the strategy generator chooses) and checked against its C on the CPU, as a user's
//! `gpucc FILE.c -o FILE.cu` does. A nest that gpucc compiles into CUDA that computes
//! something else (exit 3), a check that cannot run (exit 4), a panic, or a refusal of a
//! program in the subset is a finding; each is printed with its program.
//!
//! A program is one function of one to three nests, one to four loops deep, over one to
//! three sizes (`#define`d, or `int` parameters known only at run time), with arrays of
//! `float`, `double` and `int` of one to three dimensions. Loops start at 0, 1, 2 or an
//! outer index, end at a size, before or at an outer index or at a `min` of both, step by
//! 1, 2 or 3, or count down; statements assign, accumulate or scale, at any depth of a
//! nest, some under affine `if`s, some through local scalars, reading any array with
//! subscripts that shift, reverse or stride an index. Every access stays within its array
//! by construction: a dimension of size class `S` is `S + 2` long (`2 * S + 2` when it is
//! strided), an index of class `S` runs within `0..S`, and a constant subscript is 0 or 1
//! (0 where `S` is known only at run time: C lets `S + 2` be as small as 1). Values stay
//! finite: reads of arrays the program writes are scaled by a half or a quarter, products
//! take one factor from an array no statement writes, and `int` statements read only
//! `int` data, kept below 1000 in magnitude by `%`.
//!
//! `GPUCC_FUZZ_SCALE=N` checks N times as many programs; `GPUCC_FUZZ_SEED=S` others;
//! `GPUCC_FUZZ_FINDINGS=DIR` writes each finding there as a `.c` file with gpucc's message.
//! `scripts/fuzz` runs a long campaign.

use crate::fuzzing::{scaled, Rng};
use crate::harness::scratch_path;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Instant;

/// The programs of the short run in the test command (about two nests each).
const PROGRAMS: usize = 60;

/// A program whose compile and check take longer is reported (printed, and written to
/// `GPUCC_FUZZ_FINDINGS`): the bound for any input, in a release build.
const SLOW_SECONDS: f64 = 10.0;

/// An element type of the generated arrays.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Float,
    Double,
    Int,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::Int => "int",
        }
    }
}

struct Array {
    name: String,
    ty: Ty,
    /// Per dimension: its size class and whether it is strided (`2 * S + 2` long).
    dims: Vec<(usize, bool)>,
    /// Whether some statement writes it (decided before the statements are made).
    written: bool,
}

/// A loop index in scope: its name and size class (it runs within `0..S`).
#[derive(Clone)]
struct Index {
    name: String,
    class: usize,
}

struct Gen {
    rng: Rng,
    /// The size names (`N0`, or `n` when symbolic) and their values.
    sizes: Vec<(String, i64)>,
    symbolic: bool,
    arrays: Vec<Array>,
    /// Names of the loop indices declared at the top of the function (C89 style).
    top_indices: Vec<String>,
    temporaries: usize,
    nests: usize,
}

const INDEX_NAMES: &[&str] = &["i", "j", "k", "l"];

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut rng = Rng::seeded(seed);
        let symbolic = rng.chance(4);
        let count = 1 + rng.below(3);
        let sizes = (0..count)
            .map(|k| {
                let name = if symbolic {
                    ["n", "m", "p"][k].to_string()
                } else {
                    format!("N{k}")
                };
                (name, 3 + rng.below(14) as i64)
            })
            .collect();
        Gen {
            rng,
            sizes,
            symbolic,
            arrays: Vec::new(),
            top_indices: Vec::new(),
            temporaries: 0,
            nests: 0,
        }
    }

    fn size(&self, class: usize) -> &str {
        &self.sizes[class].0
    }

    fn program(&mut self) -> String {
        let count = 2 + self.rng.below(3);
        for a in 0..count {
            let ty = match self.rng.below(10) {
                0..=4 => Ty::Float,
                5..=7 => Ty::Double,
                _ => Ty::Int,
            };
            let rank = 1 + self.rng.below(3);
            let dims = (0..rank)
                .map(|_| (self.rng.below(self.sizes.len()), self.rng.chance(6)))
                .collect();
            self.arrays.push(Array {
                name: ["A", "B", "C", "D"][a].to_string(),
                ty,
                dims,
                // The first array is always written; the others half the time.
                written: a == 0 || self.rng.chance(2),
            });
        }
        let c89 = self.rng.chance(3);
        let mut body = String::new();
        let nests = 1 + self.rng.below(3);
        for _ in 0..nests {
            let mut scope = Vec::new();
            let depth = 1 + self.rng.below(4);
            self.nest(&mut body, 1, &mut scope, c89, depth);
        }
        let mut text = "#include <math.h>\n\n".to_string();
        if !self.symbolic {
            for (name, value) in &self.sizes {
                let _ = writeln!(text, "#define {name} {value}");
            }
            text.push('\n');
        }
        let mut params: Vec<String> = Vec::new();
        if self.symbolic {
            params.extend(self.sizes.iter().map(|(n, _)| format!("int {n}")));
        }
        params.push("float alpha".into());
        for a in &self.arrays {
            let dims: String = a
                .dims
                .iter()
                .map(|&(c, strided)| {
                    if strided {
                        format!("[2 * {} + 2]", self.size(c))
                    } else {
                        format!("[{} + 2]", self.size(c))
                    }
                })
                .collect();
            let constness = if a.written { "" } else { "const " };
            params.push(format!("{constness}{} {}{dims}", a.ty.c(), a.name));
        }
        let _ = writeln!(text, "void kernel({})\n{{", params.join(", "));
        if !self.top_indices.is_empty() {
            let _ = writeln!(text, "  int {};", self.top_indices.join(", "));
        }
        text.push_str(&body);
        text.push_str("}\n");
        text
    }

    /// The options the program is compiled with: its sizes, where they are parameters.
    fn args(&self) -> Vec<String> {
        if !self.symbolic {
            return Vec::new();
        }
        self.sizes
            .iter()
            .flat_map(|(n, v)| ["--size".to_string(), format!("{n}={v}")])
            .collect()
    }

    /// A loop (and what is inside it) at `depth`, with `left` loops to go below it.
    fn nest(
        &mut self,
        out: &mut String,
        depth: usize,
        scope: &mut Vec<Index>,
        c89: bool,
        left: usize,
    ) {
        self.nests += usize::from(depth == 1);
        let indent = "  ".repeat(depth);
        let class = self.rng.below(self.sizes.len());
        let name = INDEX_NAMES[depth - 1].to_string();
        let s = self.size(class).to_string();
        let outer: Option<String> = scope
            .iter()
            .rev()
            .find(|x| x.class == class)
            .map(|x| x.name.clone());
        let decl = if c89 {
            if !self.top_indices.contains(&name) {
                self.top_indices.push(name.clone());
            }
            String::new()
        } else {
            "int ".to_string()
        };
        let header = if self.rng.chance(8) {
            // Counting down, to 0, 1 or an outer index.
            let low = match (&outer, self.rng.below(3)) {
                (Some(o), 0) => o.clone(),
                (_, 1) => "1".into(),
                _ => "0".into(),
            };
            format!("for ({decl}{name} = {s} - 1; {name} >= {low}; {name}--)")
        } else {
            let low = match (&outer, self.rng.below(6)) {
                (Some(o), 0) => o.clone(),
                (Some(o), 1) => format!("{o} + 1"),
                (_, 2) => "1".into(),
                (_, 3) => "2".into(),
                _ => "0".into(),
            };
            let cond = match (&outer, self.rng.below(8)) {
                (Some(o), 0) => format!("{name} < {o}"),
                (Some(o), 1) => format!("{name} <= {o}"),
                (Some(o), 2) => format!("{name} < ({s} < {o} + 3 ? {s} : {o} + 3)"),
                (_, 3) => format!("{name} <= {s} - 1"),
                (_, 4) => format!("{name} < {s} - 1"),
                _ => format!("{name} < {s}"),
            };
            let step = match self.rng.below(8) {
                0 => format!("{name} += 2"),
                1 => format!("{name} += 3"),
                _ => format!("{name}++"),
            };
            format!("for ({decl}{name} = {low}; {cond}; {step})")
        };
        let _ = writeln!(out, "{indent}{header} {{");
        scope.push(Index { name, class });
        let inner = "  ".repeat(depth + 1);
        if left > 1 {
            if self.rng.chance(4) {
                self.statement(out, &inner, scope);
            }
            self.nest(out, depth + 1, scope, c89, left - 1);
            if self.rng.chance(5) {
                self.statement(out, &inner, scope);
            }
        } else {
            for _ in 0..1 + self.rng.below(3) {
                self.statement(out, &inner, scope);
            }
        }
        scope.pop();
        let _ = writeln!(out, "{indent}}}");
    }

    /// A subscript of dimension `(class, strided)` from the indices in scope.
    fn subscript(&mut self, dim: (usize, bool), scope: &[Index]) -> String {
        let (class, strided) = dim;
        let fitting: Vec<&Index> = scope.iter().filter(|x| x.class == class).collect();
        if fitting.is_empty() || self.rng.chance(8) {
            // A size known only at run time may be as small as C allows (`n + 2 >= 1`).
            let most = if self.symbolic { 1 } else { 2 };
            return self.rng.below(most).to_string();
        }
        let x = fitting[self.rng.below(fitting.len())].name.clone();
        let s = self.size(class).to_string();
        match (strided, self.rng.below(6)) {
            (true, 0) => format!("2 * {x} + 1"),
            (true, 1) => format!("{x} + {s}"),
            (true, _) => format!("2 * {x}"),
            (false, 0) => format!("{x} + 1"),
            (false, 1) => format!("{x} + 2"),
            (false, 2) => format!("{s} - 1 - {x}"),
            _ => x,
        }
    }

    fn access(&mut self, a: usize, scope: &[Index]) -> String {
        let dims = self.arrays[a].dims.clone();
        let subs: String = dims
            .into_iter()
            .map(|d| format!("[{}]", self.subscript(d, scope)))
            .collect();
        format!("{}{subs}", self.arrays[a].name)
    }

    /// A term of type `ty`: a read (scaled when its array is written), a constant, `alpha`,
    /// an index, or a math call.
    fn term(&mut self, ty: Ty, scope: &[Index], depth: usize) -> String {
        let readable: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| ty != Ty::Int || self.arrays[a].ty == Ty::Int)
            .collect();
        let inputs: Vec<usize> = readable
            .iter()
            .copied()
            .filter(|&a| !self.arrays[a].written)
            .collect();
        match self.rng.below(10) {
            0..=4 if !readable.is_empty() => {
                let a = readable[self.rng.below(readable.len())];
                let read = self.access(a, scope);
                if !self.arrays[a].written {
                    read
                } else if ty == Ty::Int {
                    format!("{read} / 2")
                } else {
                    let half = if self.rng.chance(2) { "0.5" } else { "0.25" };
                    format!("{half} * {read}")
                }
            }
            5 if ty != Ty::Int && !inputs.is_empty() && depth > 0 => {
                // A product with one factor from an array no statement writes.
                let a = inputs[self.rng.below(inputs.len())];
                let factor = self.access(a, scope);
                let other = self.term(ty, scope, depth - 1);
                format!("{factor} * ({other})")
            }
            6 if ty != Ty::Int && depth > 0 => {
                let inner = self.term(ty, scope, depth - 1);
                match self.rng.below(4) {
                    0 => format!("sqrt(fabs({inner}))"),
                    1 => format!("fabs({inner})"),
                    2 => format!("sin({inner})"),
                    _ => format!("fmax({inner}, 0.5)"),
                }
            }
            7 if !scope.is_empty() => {
                let x = &scope[self.rng.below(scope.len())].name;
                if ty == Ty::Int {
                    x.clone()
                } else {
                    format!("({}){x} / 16", ty.c())
                }
            }
            8 if ty != Ty::Int => "alpha".into(),
            _ => match ty {
                Ty::Int => (1 + self.rng.below(3)).to_string(),
                Ty::Float => "1.5f".into(),
                Ty::Double => "0.75".into(),
            },
        }
    }

    fn expression(&mut self, ty: Ty, scope: &[Index]) -> String {
        let mut e = self.term(ty, scope, 2);
        for _ in 0..self.rng.below(3) {
            let op = if ty == Ty::Int || self.rng.chance(2) {
                "+"
            } else {
                "-"
            };
            let t = self.term(ty, scope, 2);
            e = format!("{e} {op} {t}");
        }
        e
    }

    fn statement(&mut self, out: &mut String, indent: &str, scope: &[Index]) {
        let writable: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| self.arrays[a].written)
            .collect();
        let a = writable[self.rng.below(writable.len())];
        let ty = self.arrays[a].ty;
        let lhs = self.access(a, scope);
        let mut rhs = self.expression(ty, scope);
        let mut indent = indent.to_string();
        let guarded = scope.len() >= 2 && self.rng.chance(6);
        if guarded {
            let (x, y) = (&scope[scope.len() - 2].name, &scope[scope.len() - 1].name);
            let cond = match self.rng.below(3) {
                0 => format!("{x} <= {y}"),
                1 => format!("{y} >= 1"),
                _ => format!("{x} + {y} < {}", self.size(scope[0].class)),
            };
            let _ = writeln!(out, "{indent}if ({cond}) {{");
            indent.push_str("  ");
        }
        if self.rng.chance(6) {
            let t = format!("t{}", self.temporaries);
            self.temporaries += 1;
            let _ = writeln!(out, "{indent}{} {t} = {rhs};", ty.c());
            rhs = t;
        }
        let op = match self.rng.below(10) {
            0..=3 => "=",
            4..=7 => "+=",
            8 => "-=",
            _ if ty == Ty::Int => "+=",
            _ => "*=",
        };
        if op == "*=" {
            // Scaling keeps the values in range: by a constant, or an unwritten array.
            let inputs: Vec<usize> = (0..self.arrays.len())
                .filter(|&b| !self.arrays[b].written)
                .collect();
            rhs = match inputs.first() {
                Some(&b) if self.rng.chance(2) => self.access(b, scope),
                _ => "0.5".into(),
            };
        }
        if ty == Ty::Int {
            // Integers stay far from overflow (C's and the GPU's `%` agree on signs).
            rhs = format!("({rhs}) % 1000");
        }
        let _ = writeln!(out, "{indent}{lhs} {op} {rhs};");
        if guarded {
            indent.truncate(indent.len() - 2);
            let _ = writeln!(out, "{indent}}}");
        }
    }
}

/// A generated program: its text, the options it is compiled with, its number of nests.
pub struct Program {
    pub text: String,
    pub args: Vec<String>,
    pub nests: usize,
}

/// Program `k` of the campaign with base seed `seed`.
pub fn program(seed: u64, k: usize) -> Program {
    let mut g = Gen::new(seed ^ (k as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let body = g.program();
    let args = g.args();
    let text = format!(
        "/* gpucc nest fuzzer, seed {seed}, program {k}: gpucc FILE.c{} */\n{body}",
        args.iter().map(|a| format!(" {a}")).collect::<String>()
    );
    Program {
        text,
        args,
        nests: g.nests,
    }
}

/// What became of one program.
enum Outcome {
    Verified,
    Finding(String),
}

/// Compiles and checks one program as a user does; a finding says why.
fn run(p: &Program) -> Outcome {
    let c = scratch_path("nest.c");
    let cu = c.with_extension("cu");
    std::fs::write(&c, &p.text).unwrap();
    let mut args: Vec<String> = vec![
        c.display().to_string(),
        "-o".into(),
        cu.display().to_string(),
    ];
    args.extend(p.args.iter().cloned());
    let result = catch_unwind(AssertUnwindSafe(|| crate::harness::gpucc(&args)));
    for f in [&c, &cu] {
        let _ = std::fs::remove_file(f);
    }
    let _ = std::fs::remove_file(cu.with_extension("cu.rejected"));
    match result {
        Err(_) => Outcome::Finding("gpucc panicked".into()),
        Ok((0, _, _)) => Outcome::Verified,
        Ok((code, _, err)) => Outcome::Finding(format!("exit {code}\n{err}")),
    }
}

#[test]
fn random_nests_compile_to_cuda_that_computes_what_the_c_computes() {
    let seed = 0x6E57_0000_0000_0001 ^ crate::fuzzing::seed_offset();
    let programs = scaled(PROGRAMS);
    let findings_dir = std::env::var_os("GPUCC_FUZZ_FINDINGS").map(std::path::PathBuf::from);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let findings = Mutex::new(Vec::new());
    let totals = Mutex::new((0usize, 0usize, 0f64));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if k >= programs {
                    break;
                }
                let p = program(seed, k);
                let (text, nests) = (&p.text, p.nests);
                let start = Instant::now();
                let outcome = run(&p);
                let seconds = start.elapsed().as_secs_f64();
                if seconds > SLOW_SECONDS {
                    // Not a failure of the test (no timing in assertions): a finding of the
                    // long campaign, which runs the release build.
                    println!("nest fuzzer: program {k} took {seconds:.1} s");
                    if let Some(dir) = &findings_dir {
                        let _ = std::fs::create_dir_all(dir);
                        let _ = std::fs::write(dir.join(format!("slow-{seed}-{k}.c")), text);
                    }
                }
                {
                    let mut t = totals.lock().unwrap();
                    t.0 += 1;
                    t.1 += nests;
                    t.2 = t.2.max(seconds);
                }
                if let Outcome::Finding(why) = outcome {
                    if let Some(dir) = &findings_dir {
                        let _ = std::fs::create_dir_all(dir);
                        let body =
                            format!("{text}\n/* gpucc said:\n{}*/\n", why.replace("*/", "* /"));
                        let _ = std::fs::write(dir.join(format!("nest-{seed}-{k}.c")), body);
                    }
                    findings.lock().unwrap().push(format!("{text}\n{why}"));
                }
            });
        }
    });
    let (checked, nests, slowest) = *totals.lock().unwrap();
    let findings = findings.into_inner().unwrap();
    // The campaign's figures (scripts/fuzz reads this line).
    println!(
        "nest fuzzer: seed {seed}: {checked} programs, {nests} nests, {} findings, slowest {slowest:.1} s",
        findings.len()
    );
    assert!(
        findings.is_empty(),
        "{} of {checked} random programs were not compiled and verified:\n\n{}",
        findings.len(),
        findings.join("\n----------------\n")
    );
}

#[test]
fn the_generator_makes_every_kind_of_loop_it_promises() {
    let texts: Vec<String> = (0..200).map(|k| program(7, k).text).collect();
    let all = texts.join("\n");
    for shape in [
        "--)",
        "+= 2)",
        "+= 3)",
        " ? ",
        "int i, ",
        "#define N0",
        "FILE.c --size n=",
        "if (",
        "2 * ",
        " - 1 - ",
        "sqrt(fabs(",
        "double ",
        "int A",
        "const float",
        " t0 = ",
    ] {
        assert!(all.contains(shape), "no program has `{shape}`");
    }
    // Deterministic: the same seed and number give the same program.
    assert_eq!(program(7, 3).text, texts[3]);
}
