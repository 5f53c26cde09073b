//! How the tuner writes what it ranked for people: times, variants in one line, and the
//! parameter line `gpucc tune` adds to a user's recipe.

use crate::poly::Program;
use crate::strategy::Variant;

/// `12.3 us`, `4.56 ms`.
pub fn format_us(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.1} us")
    }
}

/// A variant in one line.
pub fn describe(p: &Program, v: &Variant) -> String {
    format!("{}; {}", describe_form(p, v), describe_values(v))
}

/// A variant's partition and placement, without its tile sizes.
pub fn describe_form(p: &Program, v: &Variant) -> String {
    let mut placement = v.placement.describe(p);
    let how: Vec<&str> = [(v.wide, "copied in vectors"), (v.double, "double-buffered")]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, what)| *what)
        .collect();
    if !how.is_empty() {
        placement = placement.replacen(
            "in shared memory",
            &format!("in shared memory ({})", how.join(", ")),
            1,
        );
    }
    let tiles = if v.interleaved {
        "; register tiles interleaved"
    } else {
        ""
    };
    format!("{}; {placement}{tiles}", v.partition.describe(p))
}

/// A variant's tile sizes: `TX=32 TY=8 TK=16`.
pub fn describe_values(v: &Variant) -> String {
    v.params
        .iter()
        .map(|x| format!("{}={}", x.role, x.value))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How `gpucc tune` gives a user's recipe its parameter values: a last line
/// `-- gpucc tune: -P TI=32 -P TJ=16` (a comment, so the text stays a recipe).
pub const PARAM_LINE: &str = "-- gpucc tune:";

/// The `-P` values of a text's [`PARAM_LINE`], if it has one.
pub fn marked_params(text: &str) -> Vec<(String, String)> {
    let Some(line) = text.lines().rev().find(|l| l.starts_with(PARAM_LINE)) else {
        return Vec::new();
    };
    line[PARAM_LINE.len()..]
        .split("-P")
        .filter_map(|p| p.trim().split_once('='))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect()
}
