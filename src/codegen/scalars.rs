//! Scalars in device memory: a scalar of the unit (declared outside all loops, or outside
//! the unit) that a kernel writes lives in device memory while the unit runs, so that
//! every kernel sees the value the previous one left. It is copied in when a read can see
//! its value from before the unit (a read with no earlier write in the unit, by the
//! dependence analysis), and copied out when the value is visible after the unit (a
//! variable declared before a `#pragma scop` region, or at the region's top level).

use super::ir::DeviceScalar;
use crate::frontend::UnitKind;
use crate::poly::isl::{Ctx, IslError};
use crate::poly::{ArrayId, ArrayKind};
use crate::transform::{StmtKind, Transformed};

pub fn device_scalars(t: &Transformed, ctx: &Ctx) -> Result<Vec<DeviceScalar>, IslError> {
    let p = &t.program;
    let mut out = Vec::new();
    for (a, array) in p.arrays.iter().enumerate() {
        if !in_device_memory(t, a) {
            continue;
        }
        let outside = array.kind == ArrayKind::Outside;
        let scop = matches!(p.unit.kind, UnitKind::Scop(_));
        let top_level = scop
            && array.kind == ArrayKind::Local
            && crate::deps::privatize::declared_at_top_level(p, a);
        out.push(DeviceScalar {
            array: a,
            copy_in: outside
                && crate::deps::privatize::reads_value_from_before(p, &t.deps, ctx, a)?,
            copy_out: (outside && scop) || top_level,
            host_declaration: top_level,
        });
    }
    Ok(out)
}

/// Whether kernels reach `array` through a pointer to device memory: a scalar (not one
/// declared inside loops) that a statement in a kernel writes.
pub fn in_device_memory(t: &Transformed, array: ArrayId) -> bool {
    let p = &t.program;
    let a = &p.arrays[array];
    a.is_scalar()
        && !matches!(a.kind, ArrayKind::Private { .. })
        && t.statements.iter().enumerate().any(|(s, st)| {
            matches!(st.kind, StmtKind::Compute(id) if p.accesses[p.statements[id].write].array == array)
                && t.kernel_of(s).is_some()
        })
}
