//! [`Map`]'s operations.

use super::*;

impl Map {
    pub fn parse(ctx: &Ctx, text: &str) -> IslResult<Map> {
        let raw = ctx.read(
            text,
            "map",
            |ctx, text| {
                crate::poly::reader::map(ctx, text)
                    .map_or_else(|| IslMap::read_from_str(ctx, text), Ok)
            },
            IslMap::copy,
            |p| match p {
                Parsed::Map(x) => Some(x),
                _ => None,
            },
            Parsed::Map,
        )?;
        Ok(Map {
            raw,
            ctx: ctx.clone(),
        })
    }

    pub(super) fn wrap(&self, raw: IslMap) -> Map {
        Map {
            raw,
            ctx: self.ctx.clone(),
        }
    }

    pub(super) fn copy_raw(&self) -> IslResult<IslMap> {
        self.raw.copy().map_err(|e| err("copy", e))
    }

    /// A new isl-rs handle to the same map, for [`crate::poly::schedtree`].
    pub(in crate::poly) fn raw_copy(&self) -> IslResult<IslMap> {
        self.copy_raw()
    }

    /// The same relation in fewest pieces without redundant constraints (see
    /// [`Set::simplest`]).
    pub fn simplest(&self) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .coalesce()
            .and_then(IslMap::remove_redundancies)
            .map_err(|e| err("remove_redundancies", e))?;
        Ok(self.wrap(raw))
    }

    pub fn is_empty(&self) -> IslResult<bool> {
        self.raw.is_empty().map_err(|e| err("is_empty", e))
    }

    pub fn domain(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?.domain().map_err(|e| err("domain", e))?;
        Ok(Set {
            raw,
            ctx: self.ctx.clone(),
        })
    }

    /// `{ (x -> y) : x in set }`
    pub fn intersect_domain(&self, set: &Set) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .intersect_domain(set.copy_raw()?)
            .map_err(|e| err("intersect_domain", e))?;
        Ok(self.wrap(raw))
    }

    /// `{ (x -> y) : y in set }`
    pub fn intersect_range(&self, set: &Set) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .intersect_range(set.copy_raw()?)
            .map_err(|e| err("intersect_range", e))?;
        Ok(self.wrap(raw))
    }

    /// `{ f(x) -> y : (x -> y) in self }` for the relation `f`.
    pub fn apply_domain(&self, f: &Map) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .apply_domain(f.copy_raw()?)
            .map_err(|e| err("apply_domain", e))?;
        Ok(self.wrap(raw))
    }

    /// `{ x -> f(y) : (x -> y) in self }` for the relation `f`.
    pub fn apply_range(&self, f: &Map) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .apply_range(f.copy_raw()?)
            .map_err(|e| err("apply_range", e))?;
        Ok(self.wrap(raw))
    }

    /// `{ y -> x : (x -> y) in self }`
    pub fn reverse(&self) -> IslResult<Map> {
        let raw = self.copy_raw()?.reverse().map_err(|e| err("reverse", e))?;
        Ok(self.wrap(raw))
    }

    /// For a map whose range is a wrapped pair `x -> [a -> b]`, the relation `a -> b`
    /// between the parts of its range.
    pub fn range_unwrapped(&self) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .range()
            .and_then(|s| s.unwrap())
            .map_err(|e| err("range unwrap", e))?;
        Ok(self.wrap(raw))
    }

    /// The range as a set.
    pub fn range(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?.range().map_err(|e| err("range", e))?;
        Ok(Set {
            raw,
            ctx: self.ctx.clone(),
        })
    }

    /// `{ y - x : (x -> y) in self }`
    pub fn deltas(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?.deltas().map_err(|e| err("deltas", e))?;
        Ok(Set {
            raw,
            ctx: self.ctx.clone(),
        })
    }

    /// The set of pairs `[x -> y]`.
    pub fn wrapped(&self) -> IslResult<Set> {
        let raw = self.copy_raw()?.wrap().map_err(|e| err("wrap", e))?;
        Ok(Set {
            raw,
            ctx: self.ctx.clone(),
        })
    }

    /// Simplified (redundant constraints removed, disjuncts merged where possible).
    pub fn simplify(&self) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .coalesce()
            .and_then(|m| m.remove_redundancies())
            .map_err(|e| err("simplify", e))?;
        Ok(self.wrap(raw))
    }

    /// The map without its input dimensions at `dims` (ascending), projected out; the
    /// input tuple keeps its name.
    pub fn project_out_inputs(&self, dims: &[usize]) -> IslResult<Map> {
        let name = (self.raw.get_tuple_name(DimType::In))
            .map_err(|e| err("tuple name", e))?
            .to_string();
        let mut raw = self.copy_raw()?;
        for &d in dims.iter().rev() {
            raw = (raw.project_out(DimType::In, d as u32, 1)).map_err(|e| err("project out", e))?;
        }
        let raw = (raw.set_tuple_name(DimType::In, &name)).map_err(|e| err("tuple name", e))?;
        Ok(self.wrap(raw))
    }

    /// The smallest box of constant size that holds the range for each domain point
    /// (isl's simple fixed box hull): per range dimension, the offset (affine in the
    /// domain's named dimensions and the parameters) and the size. `None` when isl finds
    /// no box of constant size, or an offset needs a division.
    pub fn range_fixed_box(
        &self,
        domain_names: &[String],
    ) -> IslResult<Option<(Vec<crate::poly::affine::Aff>, Vec<i64>)>> {
        let b = self
            .raw
            .get_range_simple_fixed_box_hull()
            .map_err(|e| err("fixed box", e))?;
        if !b.is_valid().map_err(|e| err("fixed box valid", e))? {
            return Ok(None);
        }
        let offset = b.get_offset().map_err(|e| err("box offset", e))?;
        let size = b.get_size().map_err(|e| err("box size", e))?;
        let n = size.size().map_err(|e| err("box dims", e))?;
        let mut offsets = Vec::new();
        let mut sizes = Vec::new();
        for k in 0..n {
            let v = size.get_at(k).map_err(|e| err("box size", e))?;
            sizes.push(v.get_num_si().map_err(|e| err("box size", e))?);
            let a = offset.get_at(k).map_err(|e| err("box offset", e))?;
            let Some(out) = integer_aff(&a, domain_names)? else {
                return Ok(None);
            };
            offsets.push(out);
        }
        Ok(Some((offsets, sizes)))
    }

    /// The stride of range dimension `pos` for each domain point (isl's range stride
    /// info): every element the map relates a domain point to lies, along `pos`, on the
    /// lattice `offset + stride * y`, with the offset affine in the domain's dimensions
    /// (`domain_names`) and the parameters. `None` when the stride is 1 (or the dimension
    /// takes one value), or the offset needs a division.
    pub fn range_stride(
        &self,
        pos: usize,
        domain_names: &[String],
    ) -> IslResult<Option<(i64, crate::poly::affine::Aff)>> {
        let info = self
            .raw
            .get_range_stride_info(pos as i32)
            .map_err(|e| err("stride", e))?;
        let stride = info
            .get_stride()
            .and_then(|v| v.get_num_si())
            .map_err(|e| err("stride", e))?;
        if stride <= 1 {
            return Ok(None);
        }
        let offset = info.get_offset().map_err(|e| err("stride offset", e))?;
        Ok(integer_aff(&offset, domain_names)?.map(|o| (stride, o)))
    }

    /// The union with another map of the same spaces.
    pub fn union(&self, other: &Map) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .union(other.copy_raw()?)
            .map_err(|e| err("union", e))?;
        Ok(self.wrap(raw))
    }

    /// For `[A -> B] -> [C -> D]`, the relation `A -> C` (drops the access tags).
    pub fn untagged(&self) -> IslResult<Map> {
        let raw = self
            .copy_raw()?
            .domain_factor_domain()
            .and_then(|m| m.range_factor_domain())
            .map_err(|e| err("untag", e))?;
        Ok(self.wrap(raw))
    }

    /// For `[A -> B] -> [C -> D]`, the names of `A`, `B`, `C`, `D`.
    pub fn tagged_names(&self) -> IslResult<[String; 4]> {
        let space = self.raw.get_space().map_err(|e| err("get_space", e))?;
        let side = |s: isl_rs::Space| -> IslResult<(String, String)> {
            let inner = s.unwrap().map_err(|e| err("unwrap", e))?;
            let a = inner
                .get_tuple_name(DimType::In)
                .map_err(|e| err("tuple name", e))?
                .to_string();
            let b = inner
                .get_tuple_name(DimType::Out)
                .map_err(|e| err("tuple name", e))?
                .to_string();
            Ok((a, b))
        };
        let domain = space
            .copy()
            .and_then(|s| s.domain())
            .map_err(|e| err("domain space", e))?;
        let range = space.range().map_err(|e| err("range space", e))?;
        let (a, b) = side(domain)?;
        let (c, d) = side(range)?;
        Ok([a, b, c, d])
    }
}
