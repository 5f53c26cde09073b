//! The names of a kernel's variables: its host loop variables, block loop values and
//! thread values, chosen so that they clash with nothing the program names.

use crate::poly::affine::Aff;
use crate::transform::cudaize::{Kernel, ThreadKind};
use crate::transform::{LevelId, Transformed};

/// The name of the thread index `d` (`tx`, `ty`, `tz`) in a kernel, unless the program
/// uses it.
pub fn coordinate_name(t: &Transformed, d: usize) -> String {
    let taken = |n: &str| {
        t.levels.iter().any(|l| l.name == n)
            || t.program.params.iter().any(|p| p == n)
            || t.program.arrays.iter().any(|a| a.name == n)
    };
    let base = ["tx", "ty", "tz"][d];
    (0..)
        .map(|k| {
            if k == 0 {
                base.to_string()
            } else {
                format!("{base}{k}")
            }
        })
        .find(|n| !taken(n))
        .expect("a free name")
}

/// Names of a kernel's parameters: host loop variables, block loop values, thread values.
pub struct KernelNames {
    pub host: Vec<String>,
    pub blocks: Vec<String>,
    pub threads: Vec<String>,
}

pub fn kernel_names(t: &Transformed, kernel: &Kernel) -> KernelNames {
    KernelNames {
        host: kernel
            .host_levels
            .iter()
            .map(|l| level_variable(t, kernel, *l))
            .collect(),
        blocks: kernel
            .blocks
            .iter()
            .map(|l| level_variable(t, kernel, *l))
            .collect(),
        threads: kernel
            .threads
            .iter()
            .enumerate()
            .map(|(d, td)| match td.kind {
                ThreadKind::Coordinate => coordinate_name(t, d),
                _ => level_variable(t, kernel, td.per_statement[0].1),
            })
            .collect(),
    }
}

/// The name of a level's variable in a kernel: the level's, unless a statement of the
/// kernel has an iterator of that name whose value the level is not (the point loop of a
/// loop that counts down is named `j` and runs over `-j`). In isl's texts a parameter and
/// a tuple variable of one name are one value, so such a level gets a name of its own,
/// `j_rev` (`j_loop` for a loop that runs up over another value: skewed or shifted,
/// `j + i`).
pub fn level_variable(t: &Transformed, kernel: &Kernel, l: LevelId) -> String {
    let name = &t.levels[l].name;
    let itself = Aff::var(crate::poly::affine::Var::Index(name.clone()));
    let value = kernel.statements.iter().find_map(|&s| {
        let st = &t.statements[s];
        st.iterators.iter().any(|i| i == name).then_some(())?;
        st.levels
            .iter()
            .find(|(x, v)| *x == l && *v != itself)
            .map(|(_, v)| v)
    });
    let Some(value) = value else {
        return name.clone();
    };
    let suffix = if value
        .coefficient(&crate::poly::affine::Var::Index(name.clone()))
        .0
        < 0
    {
        "rev"
    } else {
        "loop"
    };
    let taken = |n: &str| {
        t.levels.iter().any(|x| x.name == n)
            || t.program.params.iter().any(|p| p == n)
            || t.program.arrays.iter().any(|a| a.name == n)
            || t.statements
                .iter()
                .any(|s| s.iterators.iter().any(|i| i == n))
    };
    (0..)
        .map(|k| match k {
            0 => format!("{name}_{suffix}"),
            k => format!("{name}_{suffix}{k}"),
        })
        .find(|n| !taken(n))
        .expect("a free name")
}
