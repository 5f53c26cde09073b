//! The walk of a kernel's SASS into a warp's instruction stream: each instruction to its
//! pipe, after the registers it reads; loops by their lines and trip counts; memory
//! instructions at their lines' costs.

use super::*;

/// Builds a warp's stream from kernel `k`'s SASS into `b` (whose memory shares are set),
/// with the costs of `lines`; returns the whole stream's length in the same entries (for
/// [`crate::emulator::streams::scale`]), or why the SASS cannot be followed.
pub fn stream(k: &Kernel, lines: &Lines, b: &mut StreamBuilder) -> Result<f64, String> {
    let loops = loops(k, lines)?;
    let ins = &k.instructions;
    if ins.is_empty() {
        return Err("no instructions".to_string());
    }
    // The trip counts of the loops around each instruction.
    let inside = |i: usize, within: Option<(usize, usize)>| -> f64 {
        loops
            .iter()
            .filter(|l| l.head <= i && i <= l.back)
            .filter(|l| within.is_none_or(|(from, to)| from < l.head && l.back < to))
            .map(|l| l.trips)
            .product()
    };
    // Accesses without a line of their own cost what the kernel's accesses cost, in turn.
    // Per instruction: its statement line's index in `lines` and the share of one
    // instance of the statement it does; and the instances each line has done so far.
    let share: Vec<Option<(usize, f64)>> = ins
        .iter()
        .map(|i| {
            let k = lines.lines.iter().position(|l| Some(l.line) == i.line)?;
            let s = &lines.lines[k];
            (s.work > 0.0 && work(i) > 0.0).then(|| (k, work(i) / s.work))
        })
        .collect();
    let mut done = vec![0.0; lines.lines.len()];
    let mut writer: Vec<Option<usize>> = vec![None; UNIFORM_PREDICATES as usize + 8];
    // The k-th time an instruction runs it takes its line's k-th access in turn. Global
    // accesses are counted per line instead: in code ptxas unrolled whole (a GEMV row of
    // 64 iterations) each load runs once, and every one took the line's first access (`A`
    // of `A[i][j] * x[j]`, never `x`): the row predicted 1.6 times too slow. Shared loads
    // keep the count per instruction: ptxas's wide `LDS` serve several lines at once, and
    // counted per line the outer-product GEMMs' error rose (24.8% -> 25.1%).
    let mut turns: Vec<usize> = vec![0; ins.len()];
    let mut global_turns: std::collections::HashMap<(Option<u32>, bool), usize> =
        std::collections::HashMap::new();
    let mut iteration: Vec<f64> = vec![0.0; loops.len()];
    let mut pc = 0;
    let mut came_back = false;
    let mut steps = 0usize;
    while pc < ins.len() && !b.full() && steps < MAX_STEPS {
        steps += 1;
        // Entering a loop that runs no iteration skips it.
        if !came_back {
            if let Some(l) = loops.iter().find(|l| l.head == pc && l.trips == 0.0) {
                pc = l.back + 1;
                continue;
            }
        }
        came_back = false;
        let i = &ins[pc];
        let here = lines.get(i.line);
        if let Some(r) = here.filter(|r| !r.region.is_empty()) {
            b.region(&|| r.region.clone());
        } else if here.is_some_and(|r| r.loop_trip.is_some()) {
            b.region(&|| "control flow".to_string());
        }
        let mut deps: Vec<usize> = i.reads.iter().filter_map(|&r| writer[r as usize]).collect();
        deps.sort_unstable();
        deps.dedup();
        let turn = turns[pc];
        turns[pc] += 1;
        let issued = match i.kind {
            Kind::Fp32 => Some(b.push(FP32, deps, 1)),
            Kind::Fp64 => Some(b.push(FP64, deps, 1)),
            Kind::Int => Some(b.push(INT, deps, 1)),
            Kind::Special => Some(b.push(SFU, deps, 1)),
            Kind::Load(space) | Kind::Store(space) => {
                let store = matches!(i.kind, Kind::Store(_));
                let turn = match space {
                    Space::Global => {
                        let n = global_turns.entry((i.line, store)).or_default();
                        *n += 1;
                        *n - 1
                    }
                    _ => turn,
                };
                let scale = f64::from(i.words) / here.map_or(1.0, |r| r.words.max(1.0));
                // The line's accesses of this kind in turn, else the kernel's.
                let nth = |space: Space| -> Option<Mem> {
                    match here.map(|r| r.accesses(space, store)) {
                        Some(own) if !own.is_empty() => Some(own[turn % own.len()]),
                        _ => {
                            let every =
                                || lines.lines.iter().flat_map(|r| r.accesses(space, store));
                            every().nth(turn % every().count().max(1)).copied()
                        }
                    }
                };
                let m = match space {
                    Space::Global => widen(
                        nth(Space::Global).unwrap_or(Mem::Global {
                            sectors: 4.0,
                            asked: 4.0,
                            array: None,
                            l1: L1::default(),
                            read_only: false,
                        }),
                        scale,
                    ),
                    // A 64- or 128-bit load of elements the IR reads one by one: the
                    // passes of its lanes' wider spans, not the element's times the width.
                    Space::Shared => match nth(Space::Shared) {
                        Some(Mem::Shared { wavefronts, wide }) => Mem::shared(match scale {
                            2.0 => wide[0],
                            4.0 => wide[1],
                            s => wavefronts * s.max(1.0),
                        }),
                        _ => Mem::shared(scale.max(1.0)),
                    },
                    Space::Local => Mem::shared(1.0),
                    Space::Constant => Mem::Constant,
                };
                Some(b.memory(m, deps))
            }
            Kind::Atomic => {
                let issue = b.push(LSU, deps, 1);
                Some(b.push(L2, vec![issue], 1))
            }
            Kind::Shuffle => {
                let issue = b.push(LSU, deps, 1);
                Some(b.push(SHARED, vec![issue], 1))
            }
            Kind::Barrier => {
                b.barrier(1.0);
                None
            }
            Kind::Exit if !i.guarded => break,
            Kind::Branch | Kind::Exit => Some(b.push(BRANCH, deps, 1)),
            // `DEPBAR.LE SB0, 0x0`: the wait for the thread's asynchronous copies.
            Kind::Skip if i.opcode.starts_with("DEPBAR") => {
                b.wait_copies();
                None
            }
            Kind::Skip => None,
        };
        // `LDGSTS` (cp.async): nothing waits for it but a `DEPBAR`.
        if let (Some(d), true) = (issued, i.opcode.starts_with("LDGSTS")) {
            b.copy_issued(d);
        }
        if let Some(d) = issued {
            for &r in &i.writes {
                writer[r as usize] = Some(d);
            }
        }
        if let Some((k, x)) = share[pc] {
            done[k] += x;
        }
        // Where control goes next.
        pc = match (i.kind, i.target) {
            (Kind::Branch, Some(t)) if t <= pc => match loops.iter().position(|l| l.back == pc) {
                Some(l) => {
                    iteration[l] += 1.0;
                    if iteration[l] < loops[l].trips {
                        came_back = true;
                        t
                    } else {
                        iteration[l] = 0.0;
                        pc + 1
                    }
                }
                None if !i.guarded => break,
                None => pc + 1,
            },
            (Kind::Branch, Some(t)) if !i.guarded => t,
            // A guarded branch over code is taken when the code would do more instances
            // of its main statement than the thread does in all (ptxas's unrolled
            // copies for long trip counts, skipped when the count is short). The code
            // counted stops at the next guarded branch forward: a remainder's
            // iterations are guarded one by one (`@!P1 BRA` after each), and the thread
            // does those it has left.
            // A guarded branch over code mostly of statements and loops the IR walk did
            // not reach is taken: that code is a branch the representative thread does
            // not run (a full-tile kernel's guarded body, which ptxas may lay out first).
            (Kind::Branch, Some(t)) if lines.mostly_unwalked(&ins[pc + 1..t]) => t,
            (Kind::Branch, Some(t)) => {
                let mut over: Vec<f64> = vec![0.0; lines.lines.len()];
                let next_guard = (pc + 1..t)
                    .find(|&x| {
                        let i = &ins[x];
                        i.kind == Kind::Branch && i.guarded && i.target.is_some_and(|y| y > x)
                    })
                    .unwrap_or(t);
                for (x, s) in share.iter().enumerate().take(next_guard).skip(pc + 1) {
                    if let Some((k, w)) = *s {
                        over[k] += w * inside(x, Some((pc, t)));
                    }
                }
                let main = (0..over.len()).max_by(|&a, &b| over[a].total_cmp(&over[b]));
                match main {
                    Some(k)
                        if over[k] > 0.0 && done[k] + over[k] > lines.lines[k].instances + 0.5 =>
                    {
                        t
                    }
                    _ => pc + 1,
                }
            }
            _ => pc + 1,
        };
    }
    // A walk that reached the end is the whole path the warp takes. One cut short is
    // scaled by every instruction of the kernel, the paths it did not take too (a copy's
    // unrolled variants for other trip counts, the remainder loops).
    if !b.full() && steps < MAX_STEPS {
        return Ok(b.stream.len() as f64);
    }
    Ok(ins
        .iter()
        .enumerate()
        .map(|(i, x)| entries(x.kind) * inside(i, None))
        .sum())
}

/// The most instructions a SASS walk steps through (a guard against a walk that would
/// not end).
const MAX_STEPS: usize = 1_000_000;

/// A global access `scale` times as wide as the element (a vector load).
fn widen(m: Mem, scale: f64) -> Mem {
    match m {
        Mem::Global {
            sectors,
            asked,
            array,
            l1,
            read_only,
        } if scale > 1.0 => Mem::Global {
            sectors: (sectors * scale).min(64.0),
            asked: (asked * scale).min(64.0),
            array,
            l1: L1 {
                lines: l1.lines * scale,
                ..l1
            },
            read_only,
        },
        m => m,
    }
}
