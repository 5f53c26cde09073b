//! The bounds check: isl proves that no access leaves its array's declared extents, or
//! finds an iteration where one does, which the diagnostic shows.

use super::affine::isl_name;
use super::isl::{Ctx, Set};
use super::program::{AccessId, Program};
use crate::diag::{Diagnostic, Diagnostics};

/// Reports every access that can fall outside its array, with a witness iteration, and
/// every loop whose index runs beyond what an `int` holds.
pub fn check_bounds(program: &Program, ctx: &Ctx) -> Result<(), Diagnostics> {
    let mut diags = Vec::new();
    for l in 0..program.loops.len() {
        match index_beyond_int(program, ctx, l) {
            Ok(d) => diags.extend(d),
            Err(e) if e.too_complex => {}
            Err(e) => diags.push(Diagnostic::bug(e.message)),
        }
    }
    for a in 0..program.accesses.len() {
        match out_of_bounds_witness(program, ctx, a) {
            Ok(None) => {}
            Ok(Some(d)) => diags.push(d),
            Err(e) if e.too_complex => diags.push(
                Diagnostic::error(
                    program.unit.source,
                    program.accesses[a].span,
                    "gpucc could not check this access against the array's bounds",
                )
                .with_note(e.message)
                .with_hint(super::isl::too_complex_hint(
                    "the loop bounds are too complex for the bounds check: simplify them",
                )),
            ),
            Err(e) => diags.push(Diagnostic::bug(e.message)),
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

fn out_of_bounds_witness(
    program: &Program,
    ctx: &Ctx,
    a: AccessId,
) -> super::isl::IslResult<Option<Diagnostic>> {
    let access = &program.accesses[a];
    let array = &program.arrays[access.array];
    if array.extents.is_empty() {
        return Ok(None);
    }
    let st = &program.statements[access.statement];
    let private = access.subscripts.len() - array.extents.len();
    let iterators: Vec<String> = st
        .loops
        .iter()
        .map(|l| isl_name(&program.loops[*l].iterator))
        .collect();
    let outs: Vec<String> = (0..array.extents.len())
        .map(|k| format!("__o{k}"))
        .collect();
    let mut conds = vec![format!("({})", st.domain)];
    let mut outside = Vec::new();
    for (k, extent) in array.extents.iter().enumerate() {
        conds.push(access.subscripts[private + k].equals_text(&outs[k]));
        outside.push(format!("{} < 0", outs[k]));
        if let Some(e) = extent {
            outside.push(format!("{} >= {e}", outs[k]));
        }
    }
    conds.push(format!("({})", outside.join(" or ")));
    // C requires the size of a variable-length array to be positive each time it is
    // evaluated (C11 6.7.6.2p5; a parameter's on entry to the function, 6.9.1p10): no
    // call has `n + 2 <= 0` for an array `A[n + 2]`.
    for a in &program.arrays {
        for e in a.extents.iter().flatten() {
            if e.as_constant().is_none() {
                conds.push(format!("{e} >= 1"));
            }
        }
    }
    let dims: Vec<String> = iterators.iter().chain(&outs).cloned().collect();
    let text = format!(
        "{}{{ [{}] : {} }}",
        program.params_prefix(),
        dims.join(", "),
        conds.join(" and ")
    );
    let set = Set::parse(ctx, &text)?;
    let Some(sample) = set.sample()? else {
        return Ok(None);
    };
    let value = |name: &str| {
        sample
            .coordinates
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .unwrap_or(0)
    };
    let iteration: Vec<String> = st
        .loops
        .iter()
        .zip(&iterators)
        .map(|(l, n)| format!("{} = {}", program.loops[*l].iterator, value(n)))
        .collect();
    let element: String = outs.iter().map(|o| format!("[{}]", value(o))).collect();
    let verb = if access.is_write { "writes" } else { "reads" };
    let mut label = if iteration.is_empty() {
        format!("this {verb} {}{element}", array.name)
    } else {
        format!(
            "at {} this {verb} {}{element}",
            iteration.join(", "),
            array.name
        )
    };
    if !sample.params.is_empty() {
        let params: Vec<String> = sample
            .params
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        label.push_str(&format!(" (when {})", params.join(", ")));
    }
    Ok(Some(
        Diagnostic::error(
            program.unit.source,
            access.span,
            format!(
                "`{}` can access `{}` outside its bounds",
                access.text, array.name
            ),
        )
        .with_label(label)
        .with_secondary(
            program.unit.source,
            array.span,
            format!(
                "`{}` is declared as {}{}",
                array.name,
                array.name,
                array.dims_text()
            ),
        )
        .with_hint("check the loop bounds and subscripts against the array's dimensions"),
    ))
}

/// How far from `int`'s limits a loop index must stay: the generated code computes a little
/// beyond the index (a tile's start plus a thread's offset, one step past the last
/// iteration), always less than this.
const INT_MARGIN: i64 = 1 << 16;

/// A loop whose index reaches a value near or beyond what an `int` holds (the CUDA gpucc
/// writes counts its loops, threads and blocks in `int`, as the C does with an `int`
/// index, where such a loop is undefined behaviour). Checked where the sizes are
/// constants; symbolic sizes are `int` parameters, and a bound that C computes from
/// them overflows in the C first.
fn index_beyond_int(
    program: &Program,
    ctx: &Ctx,
    l: super::program::LoopId,
) -> super::isl::IslResult<Option<Diagnostic>> {
    if !program.params.is_empty() {
        return Ok(None);
    }
    let lp = &program.loops[l];
    let mut chain = vec![l];
    while let Some(parent) = program.loops[*chain.last().expect("non-empty")].parent {
        chain.push(parent);
    }
    chain.reverse();
    let names: Vec<String> = chain
        .iter()
        .map(|k| isl_name(&program.loops[*k].iterator))
        .collect();
    let index = isl_name(&lp.iterator);
    let far = i64::from(i32::MAX) - INT_MARGIN;
    let text = format!(
        "{{ [{}] : {} and {} and ({index} >= {far} or {index} <= -{far}) }}",
        names.join(", "),
        lp.context,
        lp.iterations
    );
    let Some(sample) = Set::parse(ctx, &text)?.sample()? else {
        return Ok(None);
    };
    let value = sample
        .coordinates
        .last()
        .map_or(String::new(), |(_, v)| v.to_string());
    Ok(Some(
        Diagnostic::error(
            program.unit.source,
            lp.keyword,
            format!(
                "the loop over `{}` runs to {}, beyond what an `int` holds",
                lp.iterator,
                if value.is_empty() { "values".to_string() } else { value.clone() }
            ),
        )
        .with_label(format!("`{}` reaches {value} here", lp.iterator))
        .with_note(format!(
            "gpucc's CUDA counts loops, threads and blocks in `int` (at most {}); an `int` index in C would overflow here too",
            i32::MAX
        ))
        .with_hint("keep loop indices within an `int`: split the loop, or start it at 0 and add the offset in the subscripts"),
    ))
}
