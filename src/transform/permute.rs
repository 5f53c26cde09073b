//! `permute`: reorders loops. For every statement inside the named loops, the places its
//! listed loops occupy are refilled in the listed order; its other loops stay where they
//! are. A statement that has only some of the loops (an initialisation outside the
//! innermost loop) takes the ones it has, which may distribute the nest. The result must
//! respect every dependence.

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
    let saved = t.statements.clone();
    let before = legality::schedules(t);
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
    let checked = check_tiles_stay_outside(t)
        .and_then(|()| legality::check_order(t, "this loop order", Some(&before)));
    if checked.is_err() {
        t.statements = saved;
    }
    checked
}

/// A tile's control loop must stay outside its point loop: the point loop's bounds are
/// derived from the control's value.
fn check_tiles_stay_outside(t: &Transformed) -> TResult<()> {
    for st in &t.statements {
        for (k, (l, _)) in st.levels.iter().enumerate() {
            if let Some(tile) = t.levels[*l].tile {
                if let Some(c) = st.levels.iter().position(|(x, _)| *x == tile.control) {
                    if c > k {
                        return Err(TransformError::new(format!(
                            "the tile loop `{}` cannot move outside its control loop `{}`",
                            t.levels[*l].name, t.levels[tile.control].name
                        ))
                        .hint("keep each control loop (`ii`) outside the loop it tiles (`i`)"));
                    }
                }
            }
        }
    }
    Ok(())
}
