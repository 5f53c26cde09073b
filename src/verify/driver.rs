//! The drivers of a check that calls the compiled code itself (a function, or the function
//! around a `#pragma scop` region of a file without `main`): one in C, appended to the
//! original, and one in C++, appended to the generated code. Both make the same inputs
//! (sizes, pseudo-random scalars and arrays, from one generator in one order) and call
//! the function; the C one writes every array the code writes to a file, which the C++
//! one reads and compares with its own, printing one `gpucc-array` line per array.
//!
//! The two run as separate programs, so that a crash or a hang is the original's or the
//! generated code's, and so that nothing of one (a `static` function, a global) has to
//! link with the other.

use super::{CheckError, CheckFailure, CheckOptions, DEFAULT_SIZE};
use crate::frontend::lexer::{lex, Tok, Token};
use crate::frontend::UnitKind;
use crate::poly::affine::Var;
use crate::poly::{Array, ArrayKind, Program};
use std::fmt::Write as _;

/// A compared array as the driver reports it: name and extents (for `C[17][3]`).
pub(super) struct Reported {
    pub name: String,
    pub extents: Vec<i64>,
}

/// The two drivers and what they compare.
pub(super) struct Drivers {
    /// C, appended to the original (its `main`, if any, renamed away).
    pub reference: String,
    /// C++, appended to the generated code.
    pub generated: String,
    pub arrays: Vec<Reported>,
}

/// The exit status of a driver that cannot read or write the reference's results.
pub(super) const RESULTS_EXIT: i32 = 43;

/// Relative tolerance by element type: a reordered floating-point reduction is not an
/// error, a wrong element is. An element's error is relative to the larger of its own
/// magnitude and 1% of the array's largest ([`RELATIVE_FLOOR`]): a sum whose partial sums
/// are larger than its result loses digits to cancellation, more so on a GPU, where nvcc
/// contracts `a * b + c` into fused multiply-adds (seen: SGEMM at N = 512 on an H100).
const RELATIVE_FLOOR: f64 = 1e-2;

fn tolerance(ty: crate::frontend::ast::ScalarType) -> f64 {
    use crate::frontend::ast::ScalarType::*;
    match ty {
        Float => 1e-4,
        Double => 1e-9,
        _ => 0.0,
    }
}

/// The tolerance for an array whose elements each receive `updates` reduction updates: at
/// least [`tolerance`], and at least the difference two summation orders may make, about
/// 2 n u of the sum of the terms' magnitudes for n terms at unit roundoff u (the a-priori
/// bound, Higham, "Accuracy and Stability of Numerical Algorithms", §4.2). An SGEMV row of
/// 4096 products summed by a block's threads differed from the C's sequential sum by
/// 1.1e-4 on an H200 (16384: 1.65e-4); the bound allows 4.9e-4 and 2.0e-3. The CPU check's
/// reduced sizes stay at the fixed tolerance (67 terms: 8e-6).
fn reduction_tolerance(ty: crate::frontend::ast::ScalarType, updates: i64) -> f64 {
    use crate::frontend::ast::ScalarType::*;
    let roundoff = match ty {
        Float => f64::from(f32::EPSILON) / 2.0,
        Double => f64::EPSILON / 2.0,
        _ => 0.0,
    };
    tolerance(ty).max(2.0 * updates as f64 * roundoff)
}

/// The most elements of all the arrays of a check together (the program allocates them).
const MAX_ELEMENTS: i64 = 1 << 31;

/// An input the drivers make.
enum Input {
    /// An integer size: `--size` or [`DEFAULT_SIZE`].
    Size { ty: &'static str, value: i64 },
    /// A scalar: a pseudo-random value in [0.5, 1.5).
    Scalar { ty: &'static str },
    /// An array of `count` elements, pseudo-random.
    Array {
        ty: &'static str,
        count: i64,
        extents: Vec<i64>,
        /// `(float (*)[16])` where C++ needs the declared type back.
        cast: String,
        /// Add the order to the diagonal (`--diagonally-dominant`).
        dominant: Option<i64>,
        integer: bool,
        written: bool,
    },
    /// A parameter the code does not use: a plain value.
    Unused(String),
}

/// Where an input lives: a local of the driver passed to the function, or a global of the
/// file, set before the call.
struct Made {
    name: String,
    global: bool,
    input: Input,
}

impl Made {
    /// The driver's expression for it (a local `gpucc_arg_A`, or the global itself).
    fn expr(&self) -> String {
        if self.global {
            self.name.clone()
        } else {
            format!("gpucc_arg_{}", self.name)
        }
    }
}

/// What the drivers do: the inputs in order, then a call of `function` with `arguments`
/// (indices into `inputs`).
struct Plan {
    function: String,
    inputs: Vec<Made>,
    arguments: Vec<usize>,
}

/// The drivers for `program`, whose original text is `original`.
pub(super) fn drivers(
    program: &Program,
    original: &str,
    o: &CheckOptions,
) -> Result<Drivers, CheckError> {
    let plan = match program.unit.kind {
        UnitKind::Function => function_plan(program, o)?,
        UnitKind::Scop(_) => region_plan(program, original, o)?,
    };
    let total: i64 = plan
        .inputs
        .iter()
        .map(|m| match &m.input {
            Input::Array { count, .. } => *count,
            _ => 0,
        })
        .fold(0i64, |a, b| a.saturating_add(b));
    if total > MAX_ELEMENTS {
        return Err(cannot_drive(format!(
            "the arrays of `{}` at the check's sizes hold {total} elements, more than the check allocates ({MAX_ELEMENTS})",
            plan.function
        ))
        .with_hint("check at smaller sizes with --size NAME=VALUE (or -D for the file's #defines)"));
    }
    Ok(write(&plan, program, o))
}

/// A C driver that makes the check's inputs and times calls of the function
/// (`CLOCK_MONOTONIC`), printing `gpucc-time SECONDS` after each: up to `argv[1]` calls,
/// and none after the calls so far took `argv[2]` seconds together (one at least).
pub(super) fn timing(
    program: &Program,
    original: &str,
    o: &CheckOptions,
) -> Result<String, CheckError> {
    let plan = match program.unit.kind {
        UnitKind::Function => function_plan(program, o)?,
        UnitKind::Scop(_) => region_plan(program, original, o)?,
    };
    let mut r = String::from(
        "\n#undef main\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n\n",
    );
    r.push_str(RANDOM);
    let _ = writeln!(r, "extern __typeof__({0}) {0};\n", plan.function);
    r.push_str("int main(int argc, char **argv)\n{\n");
    r.push_str(&make_inputs(&plan));
    let _ = writeln!(
        r,
        "  __typeof__({0}) *volatile gpucc_function = {0};\n  int gpucc_runs = argc > 1 ? atoi(argv[1]) : 1;\n  double gpucc_budget = argc > 2 ? atof(argv[2]) : 0, gpucc_spent = 0;",
        plan.function
    );
    let _ = writeln!(
        r,
        "  for (int gpucc_r = 0; gpucc_r < gpucc_runs && (gpucc_r == 0 || gpucc_spent < gpucc_budget); gpucc_r++) {{\n    struct timespec gpucc_a, gpucc_b;\n    clock_gettime(CLOCK_MONOTONIC, &gpucc_a);\n    gpucc_function{};\n    clock_gettime(CLOCK_MONOTONIC, &gpucc_b);\n    double gpucc_s = (gpucc_b.tv_sec - gpucc_a.tv_sec) + 1e-9 * (gpucc_b.tv_nsec - gpucc_a.tv_nsec);\n    gpucc_spent += gpucc_s;\n    printf(\"gpucc-time %.9f\\n\", gpucc_s);\n    fflush(stdout);\n  }}\n  return 0;\n}}",
        arguments(&plan, false)
    );
    Ok(r)
}

fn cannot_drive(message: String) -> CheckError {
    CheckError::new(CheckFailure::CannotDrive, message)
}

fn size_of(o: &CheckOptions, name: &str) -> i64 {
    o.sizes
        .iter()
        .find(|(x, _)| x == name)
        .map(|(_, v)| *v)
        .unwrap_or(DEFAULT_SIZE)
}

/// The input for the declaration `name` the code uses (a parameter of a function, or a
/// declaration outside a region).
fn input_for(program: &Program, o: &CheckOptions, name: &str) -> Result<Input, CheckError> {
    let p = program;
    let param = p.unit.params.iter().find(|x| x.declarator.name == name);
    let ty = param.and_then(|x| x.spec.ty).map_or("int", |t| t.c_name());
    let is_integer = param.and_then(|x| x.spec.ty).is_none_or(|t| t.is_integer());
    let dims = param.is_some_and(|x| !x.declarator.dims.is_empty());
    let array = p
        .arrays
        .iter()
        .position(|a| a.name == name && a.kind == ArrayKind::Outside);
    if p.params.iter().any(|x| x == name)
        || (!dims && is_integer && array.is_none_or(|k| p.arrays[k].is_scalar()) && {
            // An integer scalar the code only reads is a size, as gpucc reads it.
            array.is_none_or(|k| !written(p, k))
        })
    {
        return Ok(Input::Size {
            ty,
            value: size_of(o, name),
        });
    }
    let Some(k) = array else {
        return Ok(if dims {
            return Err(cannot_drive(format!(
                "the check cannot make the array `{name}`: the code does not use it"
            )));
        } else {
            Input::Unused("1".to_string())
        });
    };
    let a = &p.arrays[k];
    if a.is_scalar() {
        return Ok(Input::Scalar {
            ty: a.elem.c_name(),
        });
    }
    array_input(p, o, k, a)
}

fn written(p: &Program, k: usize) -> bool {
    p.statements.iter().any(|s| p.accesses[s.write].array == k)
}

fn array_input(p: &Program, o: &CheckOptions, k: usize, a: &Array) -> Result<Input, CheckError> {
    let name = &a.name;
    let value = |v: &Var| match v {
        Var::Param(n) => size_of(o, n),
        Var::Index(_) => 0,
    };
    let extents: Vec<i64> = a
        .extents
        .iter()
        .map(|e| {
            e.as_ref().map(|x| x.eval(&value)).ok_or_else(|| {
                cannot_drive(format!(
                    "`{name}` has no size (`[]`); the check cannot allocate it"
                ))
                .with_hint("give its first dimension a size in the declaration")
            })
        })
        .collect::<Result<_, _>>()?;
    let count = extents
        .iter()
        .try_fold(1i64, |n, &e| (e >= 0).then(|| n.checked_mul(e)).flatten())
        .ok_or_else(|| {
            cannot_drive(format!(
                "`{name}` has extents {extents:?} at the check's sizes, which the check cannot allocate"
            ))
            .with_hint("check at other sizes with --size NAME=VALUE")
        })?;
    let ty = a.elem.c_name();
    // The generated function keeps the declared type where C++ allows it.
    let constant_inner = a.extents.len() > 1
        && a.extents
            .iter()
            .skip(1)
            .all(|e| e.as_ref().and_then(|x| x.as_constant()).is_some())
        && a.extents[0]
            .as_ref()
            .is_none_or(|x| x.as_constant().is_some());
    let cast = if constant_inner {
        let inner: String = extents[1..].iter().map(|x| format!("[{x}]")).collect();
        format!("({ty} (*){inner})")
    } else {
        String::new()
    };
    let square = extents.len() == 2 && extents[0] == extents[1];
    Ok(Input::Array {
        ty,
        count,
        dominant: (o.diagonally_dominant && square && !a.elem.is_integer()).then(|| extents[0]),
        extents,
        cast,
        integer: a.elem.is_integer(),
        written: written(p, k),
    })
}

/// A compiled function: its parameters, in order.
fn function_plan(p: &Program, o: &CheckOptions) -> Result<Plan, CheckError> {
    let mut inputs = Vec::new();
    for param in &p.unit.params {
        let name = param.declarator.name.clone();
        let input = input_for(p, o, &name)?;
        inputs.push(Made {
            name,
            global: false,
            input,
        });
    }
    Ok(Plan {
        function: p.unit.function.clone(),
        arguments: (0..inputs.len()).collect(),
        inputs,
    })
}

/// A region of a file without `main`: the function around it, called with every
/// parameter made (those the region does not use: a plain value for a scalar, an error for
/// an array), after the file-scope variables the region uses are set (except constant or
/// initialised ones, which keep their values).
fn region_plan(p: &Program, original: &str, o: &CheckOptions) -> Result<Plan, CheckError> {
    let f = &p.unit.function;
    let how = format!(
        "give the file a `main` that calls `{f}` with inputs, or check the function itself with `--function {f}`"
    );
    let tokens = lex(original, 0);
    let outline = crate::frontend::scan::scan(&tokens);
    let Some(function) = outline.functions.iter().find(|x| &x.name == f) else {
        return Err(cannot_drive(format!(
            "the file has no `main`, and the check cannot find the function around the region (`{f}`) to call it"
        ))
        .with_hint(&how));
    };
    let header = tokens[function.lparen].span.start..tokens[function.rparen].span.end;
    let body = tokens[function.lbrace].span.start..tokens[function.rbrace].span.end;
    let mut inputs = Vec::new();
    let mut arguments = Vec::new();
    for chunk in parameters(&tokens[function.lparen + 1..function.rparen]) {
        let Some(name) = parameter_name(chunk) else {
            continue;
        };
        let used =
            p.unit.params.iter().any(|x| {
                x.declarator.name == name && header.contains(&x.declarator.name_span.start)
            });
        let pointer = chunk
            .iter()
            .any(|t| matches!(t.tok, Tok::Punct("[") | Tok::Punct("*")));
        let input = if used {
            input_for(p, o, &name)?
        } else if pointer {
            return Err(cannot_drive(format!(
                "the file has no `main`, and the check cannot call `{f}`: its parameter `{name}` is an array or pointer the region does not use, so the check cannot make it"
            ))
            .with_hint(&how));
        } else {
            Input::Unused(DEFAULT_SIZE.to_string())
        };
        arguments.push(inputs.len());
        inputs.push(Made {
            name,
            global: false,
            input,
        });
    }
    // File-scope variables the region uses: declared outside the function.
    for param in &p.unit.params {
        let at = param.declarator.name_span.start;
        if header.contains(&at) || body.contains(&at) {
            continue;
        }
        let name = &param.declarator.name;
        let array = p.arrays.iter().find(|a| &a.name == name);
        if param.spec.is_const || array.is_some_and(|a| a.is_const || a.initialized) {
            continue;
        }
        if param.declarator.init.is_some() {
            continue;
        }
        let input = input_for(p, o, name)?;
        if matches!(input, Input::Unused(_)) {
            continue;
        }
        inputs.push(Made {
            name: name.clone(),
            global: true,
            input,
        });
    }
    if !inputs
        .iter()
        .any(|m| matches!(m.input, Input::Array { written: true, .. }))
    {
        return Err(cannot_drive(format!(
            "the file has no `main`, and the region in `{f}` writes no array the check can see after a call of `{f}` (a parameter or a global)"
        ))
        .with_hint(&how));
    }
    Ok(Plan {
        function: f.clone(),
        inputs,
        arguments,
    })
}

/// A parameter list's tokens split at top-level commas (`void` alone is no parameter).
fn parameters(tokens: &[Token]) -> Vec<&[Token]> {
    let mut chunks = Vec::new();
    let (mut depth, mut start) = (0i64, 0);
    for (k, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Punct("(") | Tok::Punct("[") => depth += 1,
            Tok::Punct(")") | Tok::Punct("]") => depth -= 1,
            Tok::Punct(",") if depth == 0 => {
                chunks.push(&tokens[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    chunks.push(&tokens[start..]);
    let is_void = |c: &[Token]| c.len() == 1 && c[0].tok == Tok::Kw("void");
    chunks.retain(|c| !c.is_empty() && !is_void(c));
    chunks
}

/// The name a parameter declares: its last identifier outside brackets.
fn parameter_name(chunk: &[Token]) -> Option<String> {
    let mut depth = 0i64;
    let mut name = None;
    for t in chunk {
        match &t.tok {
            Tok::Punct("[") => depth += 1,
            Tok::Punct("]") => depth -= 1,
            Tok::Ident(n) if depth == 0 => name = Some(n.clone()),
            _ => {}
        }
    }
    name
}

const RANDOM: &str = "static unsigned gpucc_seed = 20261122u;\nstatic double gpucc_random(void)\n{\n  gpucc_seed = gpucc_seed * 1664525u + 1013904223u;\n  return (gpucc_seed >> 8) / 16777216.0;\n}\n\n";

/// The inputs, the same text in C and C++.
fn make_inputs(plan: &Plan) -> String {
    let mut d = String::new();
    for m in &plan.inputs {
        let x = m.expr();
        let declare = |ty: &str| {
            if m.global {
                x.clone()
            } else {
                format!("{ty} {x}")
            }
        };
        match &m.input {
            Input::Size { ty, value } => {
                let _ = writeln!(d, "  {} = {value};", declare(ty));
            }
            Input::Scalar { ty } => {
                let _ = writeln!(d, "  {} = ({ty})(0.5 + gpucc_random());", declare(ty));
            }
            Input::Unused(value) => {
                let _ = writeln!(d, "  /* {} is not used by the compiled code */", m.name);
                let _ = value;
            }
            Input::Array {
                ty,
                count,
                dominant,
                integer,
                ..
            } => {
                let fill = if *integer {
                    format!("({ty})(gpucc_random() * 10)")
                } else {
                    format!("({ty})(2 * gpucc_random() - 1)")
                };
                let elements = if m.global {
                    format!("(({ty} *){x})")
                } else {
                    let _ = writeln!(
                        d,
                        "  {ty} *{x} = ({ty} *)calloc({}, sizeof({ty}));",
                        count.max(&1)
                    );
                    x.clone()
                };
                let _ = writeln!(
                    d,
                    "  for (long gpucc_e = 0; gpucc_e < {count}L; gpucc_e++)\n    {elements}[gpucc_e] = {fill};"
                );
                if let Some(n) = dominant {
                    // Off-diagonal values are below 1 in magnitude: adding n dominates them.
                    let _ = writeln!(
                        d,
                        "  for (long gpucc_e = 0; gpucc_e < {n}L; gpucc_e++)\n    {elements}[gpucc_e * {n} + gpucc_e] += ({ty}){n};"
                    );
                }
            }
        }
    }
    d
}

/// The arguments of the call of the function, in parentheses; `cpp`: with the casts C++
/// needs.
fn arguments(plan: &Plan, cpp: bool) -> String {
    let args: Vec<String> = plan
        .arguments
        .iter()
        .map(|&k| {
            let m = &plan.inputs[k];
            match &m.input {
                Input::Unused(value) => value.clone(),
                Input::Array { cast, .. } if cpp => format!("{cast}{}", m.expr()),
                Input::Array { .. } => format!("(void *){}", m.expr()),
                _ => m.expr(),
            }
        })
        .collect();
    format!("({})", args.join(", "))
}

/// The call of the function, with the casts C++ needs.
fn cpp_call(plan: &Plan) -> String {
    format!("{}{}", plan.function, arguments(plan, true))
}

/// The written arrays, in the order both drivers handle them.
fn compared(plan: &Plan) -> impl Iterator<Item = (&Made, &'static str, i64)> {
    plan.inputs.iter().filter_map(|m| match &m.input {
        Input::Array {
            ty,
            count,
            written: true,
            ..
        } => Some((m, *ty, *count)),
        _ => None,
    })
}

fn write(plan: &Plan, p: &Program, o: &CheckOptions) -> Drivers {
    let inputs = make_inputs(plan);
    // C: make, call, write the results.
    let mut r = String::from("\n#undef main\n#include <stdio.h>\n#include <stdlib.h>\n\n");
    r.push_str(RANDOM);
    // A declaration without `inline`: an `inline` function gets an external definition.
    let _ = writeln!(r, "extern __typeof__({0}) {0};\n", plan.function);
    r.push_str("int main(int argc, char **argv)\n{\n");
    r.push_str(&inputs);
    // Called through a volatile pointer, so the compiler cannot reason about the function
    // from the call: GCC 12.2 at -O1 dropped the call of a function that stores through
    // a pointer its induction-variable optimisation rewrote (no undefined behaviour; found
    // by the random nests, testsuite/verify/check/call_the_compiler_dropped.c).
    let _ = writeln!(
        r,
        "  __typeof__({0}) *volatile gpucc_function = {0};\n  gpucc_function{1};",
        plan.function,
        arguments(plan, false)
    );
    let _ = writeln!(
        r,
        "  FILE *gpucc_out = argc > 1 ? fopen(argv[1], \"wb\") : NULL;\n  if (!gpucc_out)\n    return {RESULTS_EXIT};"
    );
    for (m, ty, count) in compared(plan) {
        let _ = writeln!(
            r,
            "  if (fwrite((const void *){}, sizeof({ty}), {count}, gpucc_out) != {count})\n    return {RESULTS_EXIT};",
            m.expr()
        );
    }
    r.push_str("  return fclose(gpucc_out) == 0 ? 0 : ");
    let _ = writeln!(r, "{RESULTS_EXIT};\n}}");

    // C++: make, call, read the reference's results, compare.
    let mut g =
        String::from("\n#undef main\n#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n\n");
    g.push_str(RANDOM);
    g.push_str("int main(int argc, char **argv)\n{\n");
    g.push_str(&inputs);
    let _ = writeln!(g, "  {};", cpp_call(plan));
    let _ = writeln!(
        g,
        "  FILE *gpucc_in = argc > 1 ? fopen(argv[1], \"rb\") : NULL;\n  if (!gpucc_in)\n    return {RESULTS_EXIT};"
    );
    let mut arrays = Vec::new();
    let sizes: Vec<(String, i64)> = p
        .params
        .iter()
        .map(|x| (x.clone(), size_of(o, x)))
        .collect();
    for (m, ty, count) in compared(plan) {
        let name = &m.name;
        let array = p
            .arrays
            .iter()
            .position(|a| &a.name == name)
            .expect("compared arrays are arrays of the program");
        let elem = p.arrays[array].elem;
        // A `double` computed from the code's `float` results has their rounding (seen:
        // a float sum split over threads, feeding a double array, off by 4e-7).
        let precision = match elem {
            crate::frontend::ast::ScalarType::Double if p.computed_from_floats(array) => {
                crate::frontend::ast::ScalarType::Float
            }
            other => other,
        };
        let tol = reduction_tolerance(precision, p.updates_per_element(array, &sizes));
        let _ = writeln!(
            g,
            "  {{\n    {ty} *gpucc_ref = ({ty} *)malloc(sizeof({ty}) * {});",
            count.max(1)
        );
        let _ = writeln!(
            g,
            "    if (!gpucc_ref || fread(gpucc_ref, sizeof({ty}), {count}, gpucc_in) != {count})\n      return {RESULTS_EXIT};"
        );
        let _ = writeln!(g, "    const {ty} *gpucc_gen = (const {ty} *){};", m.expr());
        let _ = writeln!(
            g,
            "    double gpucc_scale = 0, gpucc_worst = 0;\n    long gpucc_first = -1;"
        );
        // The array's scale from its finite elements (one infinity would make every other
        // element's error relative to it, and so zero).
        let _ = writeln!(g, "    for (long gpucc_e = 0; gpucc_e < {count}L; gpucc_e++)\n      if (std::isfinite((double)gpucc_ref[gpucc_e]))\n        gpucc_scale = fmax(gpucc_scale, fabs((double)gpucc_ref[gpucc_e]));");
        let _ = writeln!(
            g,
            "    gpucc_scale = gpucc_scale > 0 ? gpucc_scale * {RELATIVE_FLOOR:e} : 1;"
        );
        let _ = writeln!(g, "    for (long gpucc_e = 0; gpucc_e < {count}L; gpucc_e++) {{\n      {ty} gpucc_a = gpucc_ref[gpucc_e], gpucc_b = gpucc_gen[gpucc_e];");
        let _ = writeln!(
            g,
            "      double gpucc_err = fabs((double)gpucc_a - (double)gpucc_b) / fmax(fabs((double)gpucc_a), gpucc_scale);"
        );
        // NaN in both (sqrtf of a negative sum) is the same result, and so is the same
        // infinity in both (whose difference is NaN); NaN or an infinity in one is not.
        let _ = writeln!(
            g,
            "      if (gpucc_a == gpucc_b)\n        gpucc_err = 0;\n      else if (gpucc_err != gpucc_err)\n        gpucc_err = (gpucc_a != gpucc_a && gpucc_b != gpucc_b) ? 0 : 1e300;"
        );
        let _ = writeln!(g, "      if (gpucc_err > gpucc_worst)\n        gpucc_worst = gpucc_err;\n      if (gpucc_err > {tol:e} && gpucc_first < 0)\n        gpucc_first = gpucc_e;\n    }}");
        let _ = writeln!(
            g,
            "    printf(\"gpucc-array {name} %ld %.3e %ld\\n\", {count}L, gpucc_worst, gpucc_first);\n    free(gpucc_ref);\n  }}"
        );
        let extents = match &m.input {
            Input::Array { extents, .. } => extents.clone(),
            _ => Vec::new(),
        };
        arrays.push(Reported {
            name: name.clone(),
            extents,
        });
    }
    // On a GPU, a second call with every launch timed (after the comparison: the timed
    // runs repeat each launch, so the arrays no longer hold the function's result).
    let _ = writeln!(
        g,
        "#ifdef GPUCC_GPU\n  if (getenv(\"GPUCC_TIME_RUNS\")) {{\n    gpucc_time_runs = atoi(getenv(\"GPUCC_TIME_RUNS\"));\n    {};\n    gpucc_gpu_check(cudaDeviceSynchronize(), \"the timed run\");\n    gpucc_print_times();\n  }}\n#endif",
        cpp_call(plan)
    );
    g.push_str("  return 0;\n}\n");
    Drivers {
        reference: r,
        generated: g,
        arrays,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn options(diagonally_dominant: bool) -> CheckOptions<'static> {
        CheckOptions {
            c_file: Path::new("t.c"),
            defines: &[],
            include_dirs: &[],
            sizes: &[],
            diagonally_dominant,
            links: &[],
        }
    }

    #[test]
    fn diagonally_dominant_inputs_only_when_asked_and_square() {
        let text = "void f(int n, float A[n][n], float B[n][3], int I[n][n]) {\n  for (int i = 0; i < n; i++)\n    A[i][i] = A[i][i] + B[i][0] + I[i][i];\n}\n";
        let p = crate::poly::lowered(text);
        let plain = drivers(&p, text, &options(false)).ok().unwrap();
        let dominant = drivers(&p, text, &options(true)).ok().unwrap();
        let line = "gpucc_arg_A[gpucc_e * 67 + gpucc_e] += (float)67;";
        assert!(
            !plain.reference.contains("gpucc_e * 67"),
            "{}",
            plain.reference
        );
        for text in [&dominant.reference, &dominant.generated] {
            assert!(text.contains(line), "{text}");
            assert!(
                !text.contains("gpucc_arg_B[gpucc_e *") && !text.contains("gpucc_arg_I[gpucc_e *"),
                "{text}"
            );
        }
    }

    #[test]
    fn both_drivers_make_the_same_inputs() {
        let text = "void f(int n, float alpha, float A[4][8], double x[n]) {\n  for (int i = 0; i < n; i++)\n    x[i] = alpha * A[0][0];\n}\n";
        let p = crate::poly::lowered(text);
        let d = drivers(&p, text, &options(false)).ok().unwrap();
        let inputs = |t: &str| {
            let start = t.find("int main").unwrap();
            let end = t.find("  f(").or(t.find("  __typeof__(f)")).unwrap();
            t[start..end].to_string()
        };
        assert_eq!(inputs(&d.reference), inputs(&d.generated));
        assert!(
            d.reference.contains(
                "  gpucc_function(gpucc_arg_n, gpucc_arg_alpha, (void *)gpucc_arg_A, (void *)gpucc_arg_x);"
            ),
            "{}",
            d.reference
        );
        assert!(
            d.generated.contains(
                "  f(gpucc_arg_n, gpucc_arg_alpha, (float (*)[8])gpucc_arg_A, gpucc_arg_x);"
            ),
            "{}",
            d.generated
        );
        assert_eq!(d.arrays.len(), 1);
        assert_eq!(
            (d.arrays[0].name.as_str(), d.arrays[0].extents.as_slice()),
            ("x", &[67][..])
        );
    }

    #[test]
    fn a_region_without_main_is_called_through_its_function() {
        let text = "#define N 64\nfloat G[N];\nint unused_global;\nvoid f(int m, float A[N], float B[N]) {\n  int k = 3;\n#pragma scop\n  for (int i = 0; i < N; i++)\n    A[i] = B[i] + G[i] + k;\n#pragma endscop\n}\n";
        let p = crate::poly::lowered(text);
        let d = drivers(&p, text, &options(false)).ok().unwrap();
        assert!(
            d.reference
                .contains("  gpucc_function(67, (void *)gpucc_arg_A, (void *)gpucc_arg_B);"),
            "{}",
            d.reference
        );
        assert!(
            d.reference.contains("((float *)G)[gpucc_e] = "),
            "{}",
            d.reference
        );
        assert!(!d.reference.contains("gpucc_arg_k"), "{}", d.reference);
        let with_pointer = text.replace("int m,", "float *tmp,");
        let e = drivers(
            &crate::poly::lowered(&with_pointer),
            &with_pointer,
            &options(false),
        )
        .err()
        .unwrap();
        assert_eq!(e.kind, CheckFailure::CannotDrive);
        assert!(e.message.contains("its parameter `tmp`"), "{e}");
        assert!(
            e.hint.as_deref().unwrap_or("").contains("--function f"),
            "{e:?}"
        );
    }
}
