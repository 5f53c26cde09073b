//! `permute`: reorders loops. For every statement inside the named loops, the places its
//! listed loops occupy are refilled in the listed order; its other loops stay where they
//! are. A statement that has only some of the loops (an initialisation outside the
//! innermost loop) takes the ones it has, which may distribute the nest. The result must
//! respect every dependence. `distribute` splits a loop so that statements it enclosed
//! run in loop nests of their own.

use super::{legality, LevelId, TResult, TransformError, Transformed};

/// Reorders `order` (levels, outermost first) in `statements` (all that contain one of
/// them when `None`).
pub fn permute(
    t: &mut Transformed,
    order: &[LevelId],
    statements: Option<&[usize]>,
) -> TResult<()> {
    for (k, l) in order.iter().enumerate() {
        if order[..k].contains(l) {
            return Err(TransformError::new(format!(
                "`{}` appears twice in the new order",
                t.levels[*l].name
            ))
            .hint("list each loop once"));
        }
    }
    let all: Vec<usize> = (0..t.statements.len()).collect();
    let targets: Vec<usize> = statements.unwrap_or(&all).to_vec();
    legality::checked_change(t, "this loop order", |t| {
        for s in targets {
            let st = &mut t.statements[s];
            let slots: Vec<usize> = st
                .levels
                .iter()
                .enumerate()
                .filter(|(_, (l, _))| order.contains(l))
                .map(|(k, _)| k)
                .collect();
            let mut present: Vec<(LevelId, crate::poly::affine::Aff)> = order
                .iter()
                .filter_map(|l| st.levels.iter().find(|(x, _)| x == l).cloned())
                .collect();
            for (slot, entry) in slots.into_iter().zip(present.drain(..)) {
                st.levels[slot] = entry;
            }
        }
        cyclic_tiles(t)
    })
}

/// A tile's point loop ordered outside its control loop (CHiLL's tile loop above its
/// control, the cyclic distributions of seed 004 §4.4 and Fig. 4.1(e)) runs over the
/// offset in the tile, `i - size * floor(i / size)`, and the control inside it steps
/// from tile to tile: point loop `i` over 0..15 outside control `ii` makes iteration
/// `16 * ii + i`. Moved back inside, it runs over `i` again. Every statement that has
/// both loops must have them in the same order.
fn cyclic_tiles(t: &mut Transformed) -> TResult<()> {
    for l in 0..t.levels.len() {
        let Some(tile) = t.levels[l].tile else {
            continue;
        };
        let mut outside: Option<bool> = None;
        for st in &t.statements {
            let point = st.levels.iter().position(|(x, _)| *x == l);
            let control = st.levels.iter().position(|(x, _)| *x == tile.control);
            let (Some(point), Some(control)) = (point, control) else {
                continue;
            };
            let here = point < control;
            if outside.is_some_and(|o| o != here) {
                return Err(TransformError::new(format!(
                    "the tile loop `{}` would be outside its control loop `{}` in some statements and inside it in others",
                    t.levels[l].name, t.levels[tile.control].name
                ))
                .hint("order the tile and control loops the same way in every statement"));
            }
            outside = Some(here);
        }
        let Some(outside) = outside else {
            continue;
        };
        if outside == tile.outside {
            continue;
        }
        let too_large = || {
            TransformError::new("the tile's index arithmetic exceeds 64-bit integers")
                .hint("use smaller sizes")
        };
        for st in &mut t.statements {
            let Some(point) = st.levels.iter().position(|(x, _)| *x == l) else {
                continue;
            };
            let Some(control) = st.levels.iter().find(|(x, _)| *x == tile.control) else {
                continue;
            };
            let start = control.1.scale(tile.size).map_err(|_| too_large())?;
            let value = &st.levels[point].1;
            st.levels[point].1 = if outside {
                value.sub(&start)
            } else {
                value.add(&start)
            }
            .map_err(|_| too_large())?;
        }
        t.levels[l].tile = Some(super::Tile { outside, ..tile });
    }
    Ok(())
}

/// `distribute`: splits the loop `level` (and the loops inside it) so that each of
/// `statements` runs in a loop nest of its own, in the order of the text; the statements
/// not named keep the original loops. CHiLL's `distribute(stmts, level)`. The new loops
/// keep their names (commands tell them apart by statement number). Refused when a
/// dependence would run backwards, and once a named statement is in a kernel.
pub fn distribute(t: &mut Transformed, level: LevelId, statements: &[usize]) -> TResult<()> {
    let inside = t.statements_in(level);
    for &s in statements {
        if !inside.contains(&s) {
            return Err(TransformError::new(format!(
                "the statement at line {} is not inside the loop {}",
                t.source_line(s).unwrap_or(0),
                t.describe_level(level)
            ))
            .hint("name the statements that the loop encloses (`gpucc deps` numbers them)"));
        }
        legality::check_not_in_kernel(t, s, "distribute")?;
    }
    if inside.len() < 2 {
        return Err(TransformError::new(format!(
            "the loop {} encloses one statement: there is nothing to distribute",
            t.describe_level(level)
        ))
        .hint("distribute a loop that encloses several statements"));
    }
    legality::checked_change(t, "this distribution", |t| {
        // Every named statement but one takes fresh copies of the loops it shares from
        // `level` inwards; the first keeps the originals when every statement is named.
        let keeps = if inside.iter().all(|s| statements.contains(s)) {
            statements.first().copied()
        } else {
            None
        };
        for &s in statements {
            if Some(s) == keeps {
                continue;
            }
            let from = t
                .level_index(s, level)
                .expect("the statement is inside the loop");
            let mut renamed: Vec<(LevelId, LevelId)> = Vec::new();
            for k in from..t.statements[s].levels.len() {
                let old = t.statements[s].levels[k].0;
                let shared = t
                    .statements
                    .iter()
                    .enumerate()
                    .any(|(o, st)| o != s && st.below_level(old));
                if !shared {
                    continue;
                }
                let mut copy = t.levels[old].clone();
                if let Some(tile) = &mut copy.tile {
                    if let Some((_, new)) = renamed.iter().find(|(o, _)| *o == tile.control) {
                        tile.control = *new;
                    }
                }
                t.levels.push(copy);
                let new = t.levels.len() - 1;
                renamed.push((old, new));
                t.statements[s].levels[k].0 = new;
            }
        }
        Ok(())
    })
}
