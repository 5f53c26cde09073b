//! [`Set`]'s operations.

use super::*;

impl Set {
    pub fn parse(ctx: &Ctx, text: &str) -> IslResult<Set> {
        let raw = ctx.read(
            text,
            "set",
            |ctx, text| {
                crate::poly::reader::set(ctx, text)
                    .map_or_else(|| IslSet::read_from_str(ctx, text), Ok)
            },
            IslSet::copy,
            |p| match p {
                Parsed::Set(x) => Some(x),
                _ => None,
            },
            Parsed::Set,
        )?;
        Ok(Set {
            raw,
            ctx: ctx.clone(),
        })
    }

    pub(super) fn wrap(&self, raw: IslSet) -> Set {
        Set {
            raw,
            ctx: self.ctx.clone(),
        }
    }

    pub(super) fn copy_raw(&self) -> IslResult<IslSet> {
        self.raw.copy().map_err(|e| err("copy", e))
    }

    /// A new isl-rs handle to the same set, for the raw calls of [`crate::poly::astbuild`].
    pub(in crate::poly) fn raw_copy(&self) -> IslResult<IslSet> {
        self.copy_raw()
    }

    /// The same set in fewest pieces without redundant constraints (`0 <= i <= 9 and
    /// i <= j <= 9` is `i >= 0 and i <= j <= 9`), so that two writings of one set read
    /// alike.
    pub fn simplest(&self) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .coalesce()
            .and_then(IslSet::remove_redundancies)
            .map_err(|e| err("remove_redundancies", e))?;
        Ok(self.wrap(raw))
    }

    pub fn is_empty(&self) -> IslResult<bool> {
        self.raw.is_empty().map_err(|e| err("is_empty", e))
    }

    pub fn intersect(&self, other: &Set) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .intersect(other.copy_raw()?)
            .map_err(|e| err("intersect", e))?;
        Ok(self.wrap(raw))
    }

    pub fn subtract(&self, other: &Set) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .subtract(other.copy_raw()?)
            .map_err(|e| err("subtract", e))?;
        Ok(self.wrap(raw))
    }

    pub fn union(&self, other: &Set) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .union(other.copy_raw()?)
            .map_err(|e| err("union", e))?;
        Ok(self.wrap(raw))
    }

    /// Simplified (redundant constraints removed, disjuncts merged where possible).
    pub fn simplify(&self) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .coalesce()
            .and_then(|s| s.remove_redundancies())
            .map_err(|e| err("simplify", e))?;
        Ok(self.wrap(raw))
    }

    /// The lexicographically largest element, for each value of the parameters.
    pub fn lexmax(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?.lexmax().map_err(|e| err("lexmax", e))?;
        Ok(self.wrap(raw))
    }

    /// Removes the set dimensions `first..first + n` (existentially).
    pub fn project_out(&self, first: usize, n: usize) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .project_out(DimType::Set, first as u32, n as u32)
            .map_err(|e| err("project_out", e))?;
        Ok(self.wrap(raw))
    }

    /// The set without the constraints that involve dimensions `first..first + n`
    /// (a superset: those dimensions become unbounded).
    pub fn drop_constraints_involving(&self, first: usize, n: usize) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .drop_constraints_involving_dims(DimType::Set, first as u32, n as u32)
            .map_err(|e| err("drop_constraints_involving_dims", e))?;
        Ok(self.wrap(raw))
    }

    /// Removes the parameters (existentially): the set of values possible for some
    /// parameter values.
    pub fn project_out_params(&self) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .project_out_all_params()
            .map_err(|e| err("project_out_all_params", e))?;
        Ok(self.wrap(raw))
    }

    /// The set with the constraints that `context` (a set of parameters) implies left
    /// out, where isl finds them; the same set where `context` holds.
    pub fn gist_params(&self, context: &Set) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .gist_params(context.copy_raw()?)
            .and_then(|s| s.coalesce())
            .map_err(|e| err("gist", e))?;
        Ok(self.wrap(raw))
    }

    /// The image of the set under a relation.
    pub fn apply(&self, map: &Map) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .apply(map.copy_raw()?)
            .map_err(|e| err("apply", e))?;
        Ok(self.wrap(raw))
    }

    /// For a set of wrapped relations `[A -> B]`, the relation `A -> B`.
    pub fn unwrapped(&self) -> IslResult<Map> {
        let raw = self.copy_raw()?.unwrap().map_err(|e| err("unwrap", e))?;
        Ok(Map {
            raw,
            ctx: self.ctx.clone(),
        })
    }

    /// The values a one-dimensional set's progression covers: its convex hull, with the
    /// stride every value keeps (`{ [j] : 0 <= j < n, j % 3 = 0 }` for the values of a loop
    /// `j += 3`, also where some of them are missing). A launch runs a block for each of
    /// them, so the kernel may assume no more of its block variables; the hull also has no
    /// disjunctions, which made isl's code generation take seconds. The hull is taken over
    /// the parameters too, so parts far apart may leave it unbounded: a weaker assumption
    /// (more guards), never a wrong one.
    pub fn progression_hull(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?;
        let stride = raw
            .get_stride_info(0)
            .map_err(|e| err("get_stride_info", e))?;
        // Coalesced first: isl's hull of the disjunctions a parametric guard leaves
        // (`n >= 5 or exists (e0, e1: ...)`) took a minute, of the same set coalesced a
        // millisecond.
        let coalesced = raw
            .copy()
            .and_then(|s| s.coalesce())
            .map_err(|e| err("coalesce", e))?;
        // The smallest polyhedron within a budget; past it, isl's simple hull (bounded by
        // constraints of the pieces only, a superset of the polyhedral hull): one fuzzed
        // nest's block range, two disjuncts with a division, took 5 s for a tighter bound.
        let polyhedral = within_operations(&self.ctx, HULL_OPERATIONS, || {
            coalesced
                .copy()
                .and_then(|s| s.polyhedral_hull())
                .map_err(|e| err("polyhedral_hull", e))
        });
        let hull = match polyhedral? {
            Some(hull) => hull,
            None => coalesced.simple_hull().map_err(|e| err("simple_hull", e))?,
        };
        let hull = IslSet::from_basic_set(hull).map_err(|e| err("hull", e))?;
        let step = stride.get_stride().map_err(|e| err("get_stride", e))?;
        if progression_step(&step) == 1 {
            return Ok(self.wrap(hull));
        }
        let offset = stride.get_offset().map_err(|e| err("get_offset", e))?;
        let on = offset
            .get_domain_space()
            .and_then(LocalSpace::from_space)
            .and_then(|ls| Aff::var_on_domain(ls, DimType::Set, 0))
            .and_then(|x| x.sub(offset))
            .and_then(|d| d.mod_val(step))
            .and_then(|d| d.zero_basic_set())
            .and_then(IslSet::from_basic_set)
            .map_err(|e| err("stride", e))?;
        let raw = hull.intersect(on).map_err(|e| err("intersect", e))?;
        Ok(self.wrap(raw))
    }

    /// A one-dimensional set as a constraint on a new parameter `name`: `{ [v] : 0 <= v < N }`
    /// becomes `[N, name] -> { : 0 <= name < N }`.
    pub fn as_parameter(&self, name: &str) -> IslResult<Set> {
        let n = self.raw.dim(DimType::Param).map_err(|e| err("dim", e))? as u32;
        let raw = self
            .copy_raw()?
            .move_dims(DimType::Param, n, DimType::Set, 0, 1)
            .and_then(|s| s.set_dim_name(DimType::Param, n, name))
            .and_then(|s| s.params())
            .map_err(|e| err("as_parameter", e))?;
        Ok(self.wrap(raw))
    }

    /// `self` with the parameter constraints of `params` added.
    pub fn intersect_params(&self, params: &Set) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .intersect_params(params.copy_raw()?)
            .map_err(|e| err("intersect_params", e))?;
        Ok(self.wrap(raw))
    }

    pub fn set_tuple_name(&self, name: &str) -> IslResult<Set> {
        let raw = self
            .copy_raw()?
            .set_tuple_name(name)
            .map_err(|e| err("set_tuple_name", e))?;
        Ok(self.wrap(raw))
    }

    /// Per dimension after the first `earlier.len()` (named so), its value where one of the
    /// set's explicit equalities gives it as an affine form of those and the parameters
    /// (`[t] -> { S[i = 4t, k, m = k + t] }`, none earlier: `4t` for `i`; `k` earlier: `k + t`
    /// for `m`); none for the earlier ones. A plain reading: equalities isl has not found
    /// are not looked for, and a set of several pieces gives nothing.
    pub fn affine_forms(
        &self,
        earlier: &[String],
    ) -> IslResult<Vec<Option<crate::poly::affine::Aff>>> {
        use crate::poly::affine::{Aff as MyAff, Var};
        let n = self.n_dim()?;
        let first = earlier.len().min(n);
        let mut out = vec![None; n];
        if self.raw.n_basic_set().map_err(|e| err("pieces", e))? != 1 {
            return Ok(out);
        }
        let piece = (self.raw.get_basic_set_list())
            .and_then(|l| l.get_at(0))
            .map_err(|e| err("piece", e))?;
        let constraints = piece
            .get_constraint_list()
            .map_err(|e| err("constraints", e))?;
        let value = |v: Result<Val, isl_rs::LibISLError>| {
            v.and_then(|v| v.get_num_si())
                .map_err(|e| err("coefficient", e))
        };
        for k in 0..constraints.size().map_err(|e| err("constraints", e))? {
            let c = constraints.get_at(k).map_err(|e| err("constraint", e))?;
            let dims = |kind| c.dim(kind).map_err(|e| err("dims", e));
            let divs = dims(DimType::Div)?;
            if !c.is_equality().map_err(|e| err("equality", e))?
                || (divs > 0
                    && (c.involves_dims(DimType::Div, 0, divs as u32))
                        .map_err(|e| err("divs", e))?)
            {
                continue;
            }
            let coefficients: Vec<i64> = (0..n)
                .map(|d| value(c.get_coefficient_val(DimType::Set, d as i32)))
                .collect::<IslResult<_>>()?;
            let mut later = (first..n).filter(|d| coefficients[*d] != 0);
            let (Some(d), None) = (later.next(), later.next()) else {
                continue;
            };
            let a = coefficients[d];
            if a.abs() != 1 {
                continue;
            }
            // `a * x + sum(k * y) + c = 0` with `a` 1 or -1: `x = -a * (sum(k * y) + c)`.
            let mut form = MyAff::constant(-a * value(c.get_constant_val())?);
            let mut terms = Vec::new();
            for p in 0..dims(DimType::Param)? {
                let k = value(c.get_coefficient_val(DimType::Param, p))?;
                if k != 0 {
                    let name = (c.get_dim_name(DimType::Param, p as u32))
                        .map_err(|e| err("parameter name", e))?;
                    terms.push((Var::Param(name.to_string()), k));
                }
            }
            for (e, name) in earlier.iter().enumerate() {
                if coefficients[e] != 0 {
                    terms.push((Var::Index(name.clone()), coefficients[e]));
                }
            }
            for (var, k) in terms {
                let term = MyAff::var(var).scale(-a * k).map_err(|_| overflow())?;
                form = form.add(&term).map_err(|_| overflow())?;
            }
            out[d] = Some(form);
        }
        Ok(out)
    }

    pub fn n_dim(&self) -> IslResult<usize> {
        Ok(self.raw.dim(DimType::Set).map_err(|e| err("dim", e))? as usize)
    }

    /// Whether the set is one product of intervals (isl's test: no existential variables,
    /// each constraint on one dimension); `false` may also mean isl could not tell.
    pub fn is_box(&self) -> IslResult<bool> {
        self.raw.is_box().map_err(|e| err("is_box", e))
    }

    /// The smallest and largest value of set dimension `pos` (over all parameter values).
    pub fn dim_range(&self, pos: usize) -> IslResult<(Bound, Bound)> {
        let lo = self
            .copy_raw()?
            .dim_min_val(pos as i32)
            .map_err(|e| err("dim_min_val", e))?;
        let hi = self
            .copy_raw()?
            .dim_max_val(pos as i32)
            .map_err(|e| err("dim_max_val", e))?;
        Ok((bound(lo)?, bound(hi)?))
    }

    /// One point of the set, if it has any: the parameter values and the set
    /// coordinates, each with its name.
    pub fn sample(&self) -> IslResult<Option<Sample>> {
        if self.is_empty()? {
            return Ok(None);
        }
        let names = |t: DimType| -> IslResult<Vec<String>> {
            let n = self.raw.dim(t).map_err(|e| err("dim", e))?;
            Ok((0..n)
                .map(|k| set_dim_name(&self.raw, t, k as u32).unwrap_or_else(|| format!("#{k}")))
                .collect())
        };
        let param_names = names(DimType::Param)?;
        let dim_names = names(DimType::Set)?;
        let point = self
            .copy_raw()?
            .sample_point()
            .map_err(|e| err("sample_point", e))?;
        let coordinate = |t: DimType, k: usize| -> IslResult<i64> {
            let v = point
                .get_coordinate_val(t, k as i32)
                .map_err(|e| err("get_coordinate_val", e))?;
            v.get_num_si().map_err(|e| err("get_num_si", e))
        };
        let params = param_names
            .into_iter()
            .enumerate()
            .map(|(k, n)| Ok((n, coordinate(DimType::Param, k)?)))
            .collect::<IslResult<_>>()?;
        let coordinates = dim_names
            .into_iter()
            .enumerate()
            .map(|(k, n)| Ok((n, coordinate(DimType::Set, k)?)))
            .collect::<IslResult<_>>()?;
        Ok(Some(Sample {
            params,
            coordinates,
        }))
    }
}
