//! `tile`: splits a loop into a control loop over tiles (`ii`, the tile index
//! `floor(i / size)`) and a point loop over the iterations of one tile (`i`). Tiles are
//! aligned to multiples of the size; isl's code generation guards the remainder when the
//! size does not divide the extent. Tiling alone never reorders instances; with the
//! permutation that usually follows, the legality check runs on the result.

use super::{LevelId, TResult, Tile, TransformError, Transformed};

/// Tiles `level` by `size`: a new control level named `control` goes right outside it;
/// the point level keeps `level`'s id and is renamed `point` when given.
pub fn tile(
    t: &mut Transformed,
    level: LevelId,
    size: i64,
    control: &str,
    point: Option<&str>,
) -> TResult<LevelId> {
    if size < 1 {
        return Err(
            TransformError::new(format!("tile size {size} is not positive"))
                .hint("tile sizes are positive integers"),
        );
    }
    check_fresh_name(t, control)?;
    if let Some(p) = point {
        if p != t.levels[level].name {
            check_fresh_name(t, p)?;
        }
    }
    let new = t.new_level(control);
    for st in &mut t.statements {
        if let Some(k) = st.levels.iter().position(|(l, _)| *l == level) {
            let value = st.levels[k].1.clone();
            st.levels.insert(k, (new, value.floor_div(size)));
        }
    }
    let lv = &mut t.levels[level];
    lv.tile = Some(Tile {
        control: new,
        size,
        outside: false,
    });
    if let Some(p) = point {
        lv.name = p.to_string();
    }
    Ok(new)
}

/// A new loop name must not clash with an existing loop or a parameter.
pub fn check_fresh_name(t: &Transformed, name: &str) -> TResult<()> {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(
            TransformError::new(format!("`{name}` is not a valid loop index name"))
                .hint("loop names are C identifiers"),
        );
    }
    if t.levels.iter().any(|l| l.name == name) {
        return Err(
            TransformError::new(format!("a loop named `{name}` already exists"))
                .hint("give the new loop a name that is not used yet"),
        );
    }
    let partial = |n: &str| {
        t.kernels
            .iter()
            .flat_map(|k| &k.reductions)
            .any(|r| r.partial == n)
    };
    if t.program.params.iter().any(|p| p == name)
        || t.program.arrays.iter().any(|a| a.name == name)
        || partial(name)
    {
        return Err(TransformError::new(format!(
            "`{name}` is already the name of a variable of the program"
        ))
        .hint("give the new loop another name"));
    }
    Ok(())
}
