//! Safe wrappers over the few isl operations gpucc uses. This file and its siblings in
//! `poly` are the only code that names isl-rs types; the rest of gpucc uses [`Ctx`],
//! [`Set`], [`Map`] and [`UnionMap`], which keep their isl context alive, report isl's
//! errors as values, and never let isl print to the terminal.
//!
//! isl objects are built from isl's own text syntax (`[N] -> { S0[i] : 0 <= i < N }`),
//! which [`super::affine`] prints; [`super::reader`] reads the conjunctions gpucc writes
//! into constraint matrices, isl's parser the rest.

use isl_rs::{
    Aff, Context, DimType, LocalSpace, Map as IslMap, Options, Set as IslSet, UnionAccessInfo,
    UnionMap as IslUnionMap, Val,
};
use std::fmt;
use std::rc::Rc;

mod flow;
mod map;
mod set;

pub use flow::{compute_flow, Sources};

/// An isl failure: a bug in the text gpucc built, or a problem too large for isl's
/// operation budget.
#[derive(Clone, Debug, PartialEq)]
pub struct IslError {
    pub message: String,
    /// isl gave up because the problem needs more operations than it is allowed.
    pub too_complex: bool,
}

impl fmt::Display for IslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub type IslResult<T> = Result<T, IslError>;

fn err(what: &str, e: isl_rs::LibISLError) -> IslError {
    let text = e.to_string();
    error(&format!("isl: {what}"), &text, text.contains("Quota"))
}

/// The error of isl's failure at `what` with its message `text`; `quota` when isl said it
/// ran out of operations. A context out of operations fails whatever comes next, often as
/// another error (its parser says "syntax error"): the budget is the cause then too.
pub(super) fn error(what: &str, text: &str, quota: bool) -> IslError {
    let too_complex = quota || exhausted_on_this_thread();
    let message = if too_complex {
        let (reached, _) = crate::limits::current().exceeded("isl-operations", "isl");
        format!("{reached}, in {what}")
    } else {
        format!("{what}: {text}")
    };
    IslError {
        too_complex,
        message,
    }
}

/// The hint of an error for a problem too large for isl: `advice`, or a larger budget.
pub fn too_complex_hint(advice: &str) -> String {
    let (_, raise) = crate::limits::current().exceeded("isl-operations", "isl");
    format!("{advice}; {raise}")
}

thread_local! {
    /// The isl contexts alive on this thread (their raw pointers).
    static LIVE: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether an isl context of this thread has spent its operations.
fn exhausted_on_this_thread() -> bool {
    LIVE.with(|live| {
        live.borrow()
            .iter()
            .any(|&ctx| unsafe { isl_ctx_next_operation(ctx) } < 0)
    })
}

/// Writes the text isl printed (`text`, from one of its `*_to_str`) and frees it. isl
/// prints nothing (a null pointer) when its context has spent its operations, as printing
/// allocates: the text written then is one no other object has (a key made of it finds
/// nothing kept), and the context stays out of operations, so that its next computation
/// fails as too complex. (isl-rs 0.3.1's `to_str` read the null pointer, and never freed
/// the text.)
fn print(f: &mut fmt::Formatter<'_>, ctx: &Ctx, text: *mut std::os::raw::c_char) -> fmt::Result {
    if text.is_null() {
        ctx.raw().reset_error();
        static UNPRINTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = UNPRINTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        return write!(f, "<isl printed nothing: out of operations, #{n}>");
    }
    let written = f.write_str(&unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy());
    unsafe { libc::free(text.cast()) };
    written
}

extern "C" {
    fn isl_set_to_str(set: usize) -> *mut std::os::raw::c_char;
    fn isl_map_to_str(map: usize) -> *mut std::os::raw::c_char;
    fn isl_union_map_to_str(umap: usize) -> *mut std::os::raw::c_char;
    /// Counts one operation; fails once the context's `max_operations` are spent (isl
    /// 0.27 exports it, and has no other way to ask).
    fn isl_ctx_next_operation(ctx: usize) -> i32;
    fn isl_set_get_dim_name(set: usize, type_: i32, pos: u32) -> *const std::os::raw::c_char;
    fn isl_aff_get_dim_name(aff: usize, type_: i32, pos: u32) -> *const std::os::raw::c_char;
}

/// A set dimension's name, if it has one (isl-rs 0.3.1 dereferences the null pointer isl
/// returns for an unnamed dimension).
/// A stride as isl gives it, as the step of a progression: the number when it is an
/// integer above 1, else 1 (every integer).
pub fn progression_step(stride: &Val) -> i64 {
    match (stride.is_int(), stride.get_num_si()) {
        (Ok(true), Ok(s)) if s > 1 => s,
        _ => 1,
    }
}

fn set_dim_name(set: &IslSet, t: DimType, pos: u32) -> Option<String> {
    let ptr = unsafe { isl_set_get_dim_name(set.ptr, t.to_i32(), pos) };
    if ptr.is_null() {
        return None;
    }
    Some(
        unsafe { std::ffi::CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The error of an affine expression read from isl whose coefficients leave 64 bits.
fn overflow() -> IslError {
    IslError {
        message: "an affine expression overflows".into(),
        too_complex: true,
    }
}

/// An isl affine expression with integer coefficients as gpucc's, its input dimensions
/// named `domain_names` (isl may drop their names); `None` when it has a denominator or a
/// division.
pub(super) fn integer_aff(
    a: &isl_rs::Aff,
    domain_names: &[String],
) -> IslResult<Option<super::affine::Aff>> {
    use super::affine::{Aff as MyAff, Var};
    let den = a
        .get_denominator_val()
        .map_err(|e| err("denominator", e))?
        .get_num_si()
        .map_err(|e| err("denominator", e))?;
    if den != 1 || a.dim(DimType::Div).map_err(|e| err("divs", e))? > 0 {
        return Ok(None);
    }
    let value = |v: Val| v.get_num_si().map_err(|e| err("coefficient", e));
    let mut out = MyAff::constant(value(
        a.get_constant_val().map_err(|e| err("constant", e))?,
    )?);
    for (kind, dim) in [(DimType::In, 0), (DimType::Param, 1)] {
        let count = a.dim(kind).map_err(|e| err("dims", e))?;
        for pos in 0..count {
            let c = value(
                a.get_coefficient_val(kind, pos)
                    .map_err(|e| err("coefficient", e))?,
            )?;
            if c == 0 {
                continue;
            }
            let var = if dim == 0 {
                Var::Index(
                    domain_names
                        .get(pos as usize)
                        .cloned()
                        .ok_or_else(|| IslError {
                            message: "an affine expression has more input dimensions than names"
                                .into(),
                            too_complex: false,
                        })?,
                )
            } else {
                Var::Param(param_name(a, pos)?)
            };
            let term = MyAff::var(var).scale(c).map_err(|_| overflow())?;
            out = out.add(&term).map_err(|_| overflow())?;
        }
    }
    Ok(Some(out))
}

/// The name of parameter `pos` of an affine expression.
fn param_name(aff: &isl_rs::Aff, pos: i32) -> IslResult<String> {
    let ptr = unsafe { isl_aff_get_dim_name(aff.ptr, DimType::Param.to_i32(), pos as u32) };
    if ptr.is_null() {
        return Err(IslError {
            message: "an unnamed parameter".into(),
            too_complex: false,
        });
    }
    Ok(unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned())
}

/// An object isl read from text, kept by its context for the next read of that text.
enum Parsed {
    Set(IslSet),
    Map(IslMap),
    UnionMap(IslUnionMap),
}

/// Texts read at most per context before its cache starts again.
const PARSED_MOST: usize = 16384;

struct CtxInner {
    raw: Context,
    /// What [`Set::parse`], [`Map::parse`] and [`UnionMap::parse`] read, by their text:
    /// the tuner compiles dozens of variants of one program, whose domains, accesses and
    /// dependences are the same text read again and again (3mm: 11,700 reads, 570 texts).
    parsed: std::cell::RefCell<std::collections::HashMap<String, Parsed>>,
}

impl Drop for CtxInner {
    fn drop(&mut self) {
        // The objects first: isl frees no context that objects still reference.
        self.parsed.borrow_mut().clear();
        let ptr = self.raw.ptr;
        let _ = LIVE.try_with(|live| live.borrow_mut().retain(|&p| p != ptr));
    }
}

thread_local! {
    /// The context of this thread's computations (see [`Ctx::new`]).
    static SHARED: std::cell::RefCell<Kept> = const { std::cell::RefCell::new(Kept(None)) };
}

/// A thread's context, handed to the next thread when this one ends ([`POOL`]).
struct Kept(Option<Ctx>);

impl Drop for Kept {
    fn drop(&mut self) {
        let Some(ctx) = self.0.take() else { return };
        // Only a context nothing else refers to moves to another thread.
        if Rc::strong_count(&ctx.0) != 1 {
            return;
        }
        let ptr = ctx.raw().ptr;
        let _ = LIVE.try_with(|live| live.borrow_mut().retain(|&p| p != ptr));
        if let Ok(mut pool) = POOL.lock() {
            if pool.len() < POOLED_MOST {
                pool.push(Pooled(ctx));
            }
        }
    }
}

/// The contexts of threads that ended, with the texts they read: the tuner's workers are
/// new threads for every batch of candidates, and each read the program's texts afresh
/// (mm2: 1,598 schedule texts parsed, 565 distinct).
static POOL: std::sync::Mutex<Vec<Pooled>> = std::sync::Mutex::new(Vec::new());

/// Contexts kept for later threads at most.
const POOLED_MOST: usize = 16;

/// A context no thread uses, and that no object refers to.
struct Pooled(Ctx);

// SAFETY: a context enters the pool only when its `Rc` has no other reference (no isl
// object made in it is alive outside its own cache), and leaves it for one thread only;
// isl contexts are not tied to the thread that made them.
unsafe impl Send for Pooled {}

/// An isl context; objects made in it keep it alive.
#[derive(Clone)]
pub struct Ctx(Rc<CtxInner>);

impl Ctx {
    /// The isl context for a new computation: the thread's one context (so that texts it
    /// has read once are not parsed again), its operation budget reset to
    /// `--limit isl-operations`.
    pub fn new() -> Ctx {
        let ctx = SHARED
            .try_with(|shared| {
                shared
                    .borrow_mut()
                    .0
                    .get_or_insert_with(Ctx::reused)
                    .clone()
            })
            .unwrap_or_else(|_| Ctx::alloc());
        ctx.restart_operations();
        ctx
    }

    /// The operation budget of one computation, `--limit isl-operations`, from nothing
    /// spent: generous for real loop nests, finite so that a pathological input ends in an
    /// error rather than an endless computation.
    pub(super) fn restart_operations(&self) {
        self.restart_operations_with(crate::limits::current().isl_operations);
    }

    /// [`Ctx::restart_operations`] with a budget of `max` operations (an AST build's share).
    pub(super) fn restart_operations_with(&self, max: u64) {
        self.raw().set_max_operations(max);
        self.raw().reset_operations();
        // A computation that ran out leaves its error behind, which the next call would
        // report as its own.
        self.raw().reset_error();
    }

    /// A context a thread that ended left ([`POOL`]), else a new one.
    fn reused() -> Ctx {
        let pooled = POOL.lock().ok().and_then(|mut pool| pool.pop());
        match pooled {
            Some(Pooled(ctx)) => {
                LIVE.with(|live| live.borrow_mut().push(ctx.raw().ptr));
                ctx
            }
            None => Ctx::alloc(),
        }
    }

    fn alloc() -> Ctx {
        let ctx = Context::alloc();
        // Errors come back as values; isl must not print them or abort.
        let _ = Options::set_on_error(&ctx, 1);
        LIVE.with(|live| live.borrow_mut().push(ctx.ptr));
        Ctx(Rc::new(CtxInner {
            raw: ctx,
            parsed: Default::default(),
        }))
    }

    pub(super) fn raw(&self) -> &Context {
        &self.0.raw
    }

    /// The object read from `text` as a `what` (`set`, `map`, ...) before in this
    /// context, else `read`'s, remembered (`keep`) for the next read; `kept` finds it.
    fn read<T>(
        &self,
        text: &str,
        what: &str,
        read: fn(&Context, &str) -> Result<T, isl_rs::LibISLError>,
        copy: fn(&T) -> Result<T, isl_rs::LibISLError>,
        kept: fn(&Parsed) -> Option<&T>,
        keep: fn(T) -> Parsed,
    ) -> IslResult<T> {
        if let Some(hit) = self.0.parsed.borrow().get(text).and_then(kept) {
            return copy(hit).map_err(|e| err("copy", e));
        }
        let fresh =
            read(self.raw(), text).map_err(|e| err(&format!("cannot read {what} `{text}`"), e))?;
        if let Ok(copied) = copy(&fresh) {
            let mut cache = self.0.parsed.borrow_mut();
            if cache.len() >= PARSED_MOST {
                cache.clear();
            }
            cache.insert(text.to_string(), keep(copied));
        }
        Ok(fresh)
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx::new()
    }
}

/// An integer set (`[N] -> { S0[i, j] : ... }`).
pub struct Set {
    raw: IslSet,
    ctx: Ctx,
}

/// A relation between integer tuples (`{ S0[i] -> A[i + 1] }`).
pub struct Map {
    raw: IslMap,
    ctx: Ctx,
}

/// A union of relations between tuples of different names.
pub struct UnionMap {
    raw: IslUnionMap,
    ctx: Ctx,
}

/// A bound of a dimension over a set: a value or unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Finite(i64),
    Infinite,
}

fn bound(v: Val) -> IslResult<Bound> {
    if v.is_infty().map_err(|e| err("is_infty", e))?
        || v.is_neginfty().map_err(|e| err("is_neginfty", e))?
    {
        return Ok(Bound::Infinite);
    }
    Ok(Bound::Finite(
        v.get_num_si().map_err(|e| err("get_num_si", e))?,
    ))
}

/// A point of a set, by names.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub params: Vec<(String, i64)>,
    pub coordinates: Vec<(String, i64)>,
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(f, &self.ctx, unsafe { isl_set_to_str(self.raw.ptr) })
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(f, &self.ctx, unsafe { isl_map_to_str(self.raw.ptr) })
    }
}

impl UnionMap {
    pub fn parse(ctx: &Ctx, text: &str) -> IslResult<UnionMap> {
        let raw = ctx.read(
            text,
            "union map",
            IslUnionMap::read_from_str,
            IslUnionMap::copy,
            |p| match p {
                Parsed::UnionMap(x) => Some(x),
                _ => None,
            },
            Parsed::UnionMap,
        )?;
        Ok(UnionMap {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// The union of maps given as isl texts (an empty union for none).
    pub fn parse_all<'a>(
        ctx: &Ctx,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> IslResult<UnionMap> {
        let mut all = UnionMap::parse(ctx, "{ }")?;
        for t in texts {
            let one = UnionMap::parse(ctx, t)?;
            let raw = all.raw.union(one.raw).map_err(|e| err("union", e))?;
            all = UnionMap {
                raw,
                ctx: ctx.clone(),
            };
        }
        Ok(all)
    }

    /// The union of `maps` (an empty union for none), kept as objects.
    pub fn of_maps(ctx: &Ctx, maps: &[Map]) -> IslResult<UnionMap> {
        let mut all = UnionMap::parse(ctx, "{ }")?.raw;
        for m in maps {
            let one = IslUnionMap::from_map(m.copy_raw()?).map_err(|e| err("from_map", e))?;
            all = all.union(one).map_err(|e| err("union", e))?;
        }
        Ok(UnionMap {
            raw: all,
            ctx: ctx.clone(),
        })
    }

    fn copy_raw(&self) -> IslResult<IslUnionMap> {
        self.raw.copy().map_err(|e| err("copy", e))
    }

    /// A new isl-rs handle to the same union map, for the raw calls of [`super::astbuild`].
    pub(super) fn raw_copy(&self) -> IslResult<IslUnionMap> {
        self.copy_raw()
    }

    /// The maps of the union, one per pair of tuple names.
    pub fn maps(&self) -> IslResult<Vec<Map>> {
        let list = self
            .raw
            .get_map_list()
            .map_err(|e| err("get_map_list", e))?;
        let n = list.n_map().map_err(|e| err("n_map", e))?;
        (0..n)
            .map(|k| {
                let raw = list.get_at(k).map_err(|e| err("get_at", e))?;
                Ok(Map {
                    raw,
                    ctx: self.ctx.clone(),
                })
            })
            .collect()
    }
}

impl fmt::Display for UnionMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(f, &self.ctx, unsafe { isl_union_map_to_str(self.raw.ptr) })
    }
}

/// `f` run with at most `budget` of isl's operations (the `--limit isl-operations` in force
/// when that is smaller), for a computation with a cheaper fallback: `None` where `f` ran
/// out of the budget but not of the limit (isl's error state cleared, for the caller to fall
/// back). The operation count starts again afterwards.
fn within_operations<T>(
    ctx: &Ctx,
    budget: u64,
    f: impl FnOnce() -> IslResult<T>,
) -> IslResult<Option<T>> {
    let raw = ctx.raw();
    let limit = crate::limits::current().isl_operations;
    let budget = limit.min(budget);
    raw.reset_operations();
    raw.set_max_operations(budget);
    let result = f();
    ctx.restart_operations();
    match result {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.too_complex && budget < limit => {
            raw.reset_error();
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The operations a set's polyhedral hull may spend before [`Set::progression_hull`] takes
/// isl's simple hull instead. Measured: with a tenth of it, the testsuite's strategy and
/// dependence kernels and PolyBench/C 4.2.1's files compile to the same CUDA as without a
/// budget; the fuzzed nest of `benchmarks/inputs/fuzz-20261130-4488.c` spent 5 s in one
/// hull without one.
const HULL_OPERATIONS: u64 = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// Printing allocates, so a context out of operations prints nothing: the object's
    /// text is then one no other has (no memo keyed by it finds another's result), and the
    /// next computation in the context fails as too complex, not as a crash.
    #[test]
    fn an_object_printed_out_of_operations_has_a_text_of_its_own() {
        let limits = crate::limits::Limits {
            isl_operations: 100_000,
            ..Default::default()
        };
        crate::limits::with(limits, || {
            let ctx = Ctx::new();
            let a = Set::parse(&ctx, "[N] -> { S[i] : 0 <= i < N }").unwrap();
            let b = Set::parse(&ctx, "[N] -> { S[i] : 0 <= i < 2N }").unwrap();
            let mut k = 0;
            while Set::parse(&ctx, &format!("{{ S[i] : 0 <= i < {k} }}")).is_ok() {
                k += 1;
            }
            let (x, y) = (a.to_string(), b.to_string());
            assert!(x.starts_with("<isl printed nothing"), "{x}");
            assert_ne!(x, y);
            let e = a
                .intersect(&b)
                .err()
                .expect("the context is out of operations");
            assert!(e.too_complex, "{e:?}");
            ctx.restart_operations();
            assert_eq!(a.to_string(), "[N] -> { S[i] : 0 <= i < N }");
        });
    }

    /// A dimension that an equality gives in the parameters (and the dimensions before a
    /// given one) is read off; one that moves with a later dimension is not, nor anything
    /// of a set of two pieces.
    #[test]
    fn affine_forms_are_read_from_the_equalities() {
        use crate::poly::affine::{Aff as MyAff, Var};
        let ctx = Ctx::new();
        let s = Set::parse(
            &ctx,
            "[t, b] -> { S[i, j, k, m] : i = 4t and j = 3 - b and 0 <= k < 8 and m = k + t }",
        )
        .unwrap();
        let p = |n: &str, k: i64| MyAff::var(Var::Param(n.into())).scale(k).unwrap();
        let j = p("b", -1).add(&MyAff::constant(3)).unwrap();
        let fixed = [Some(p("t", 4)), Some(j), None, None];
        assert_eq!(s.affine_forms(&[]).unwrap(), fixed);
        let names: Vec<String> = ["i", "j", "k"].map(String::from).to_vec();
        let m = MyAff::var(Var::Index("k".into())).add(&p("t", 1)).unwrap();
        assert_eq!(s.affine_forms(&names).unwrap(), [None, None, None, Some(m)]);
        let two = Set::parse(&ctx, "[t] -> { S[i] : i = t or i = t + 5 }").unwrap();
        assert_eq!(two.affine_forms(&[]).unwrap(), [None]);
    }

    /// Threads that start after others ended take their contexts (and the texts read
    /// there) and compute the same: each reads, intersects and tests again.
    #[test]
    fn a_context_passes_from_a_thread_that_ended_to_the_next() {
        for _ in 0..3 {
            let answer = std::thread::spawn(|| {
                let ctx = Ctx::new();
                let a = Set::parse(&ctx, "[N] -> { S[i] : 0 <= i < N }").unwrap();
                let b = Set::parse(&ctx, "[N] -> { S[i] : i >= N }").unwrap();
                let again = Set::parse(&ctx, "[N] -> { S[i] : 0 <= i < N }").unwrap();
                (
                    a.intersect(&b).unwrap().is_empty().unwrap(),
                    again.intersect(&a).unwrap().is_empty().unwrap(),
                )
            })
            .join()
            .unwrap();
            assert_eq!(answer, (true, false));
        }
    }

    #[test]
    fn sets_and_samples() {
        let ctx = Ctx::new();
        let s = Set::parse(
            &ctx,
            "[N] -> { S[i, j] : 0 <= i < N and 0 <= j <= i and N = 4 }",
        )
        .unwrap();
        assert!(!s.is_empty().unwrap());
        let p = s.sample().unwrap().unwrap();
        assert_eq!(p.params, vec![("N".to_string(), 4)]);
        assert_eq!(p.coordinates.len(), 2);
        assert_eq!(
            s.dim_range(0).unwrap(),
            (Bound::Finite(0), Bound::Finite(3))
        );
        let open = Set::parse(&ctx, "[N] -> { [d] : d >= 1 }").unwrap();
        assert_eq!(
            open.dim_range(0).unwrap(),
            (Bound::Finite(1), Bound::Infinite)
        );
    }

    /// The hull of a loop's values covers them, keeps their stride and offset, and has no
    /// disjunction left (a union whose parts are far apart in parameter space may lose
    /// its bounds: a weaker assumption, so more guards, never fewer).
    #[test]
    fn progression_hull_keeps_the_stride() {
        let ctx = Ctx::new();
        let set = |t: &str| Set::parse(&ctx, t).unwrap();
        let within = |a: &Set, b: &Set| a.subtract(b).unwrap().is_empty().unwrap();
        let holes =
            set("[n] -> { [j] : exists e: j = 3e + 1 and (1 <= j < 10 or n <= j < n + 10) }");
        let hull = holes.progression_hull().unwrap();
        assert!(within(&holes, &hull), "{hull}");
        assert!(
            within(&hull, &set("[n] -> { [j] : exists e: j = 3e + 1 }")),
            "{hull}"
        );
        let gap =
            set("[n] -> { [j] : 0 <= j < 10 and j mod 3 = 0 or 30 <= j < 40 and j mod 3 = 0 }");
        let hull = gap.progression_hull().unwrap();
        let expected = set("[n] -> { [j] : 0 <= j <= 39 and j mod 3 = 0 }");
        assert!(
            within(&hull, &expected) && within(&expected, &hull),
            "{hull}"
        );
        let halves = set("[n] -> { [j] : 0 <= j < n or n <= j < 2n }");
        let expected = set("[n] -> { [j] : 0 <= j < 2n }");
        let hull = halves.progression_hull().unwrap();
        assert!(
            within(&hull, &expected) && within(&expected, &hull),
            "{hull}"
        );
    }

    /// A block variable's values under a parametric guard with disjunctions (found by the
    /// nest fuzzer, seed 7950823667145900033, program 31): isl's hull of the set as it comes
    /// spent a minute (about 10 million isl operations, so the candidate failed under a
    /// smaller budget); coalesced first, it needs a small fraction of that.
    #[test]
    fn progression_hull_of_a_disjunctive_guard_is_cheap() {
        let limits = crate::limits::Limits {
            isl_operations: 100_000,
            ..crate::limits::current()
        };
        crate::limits::with(limits, || {
            let ctx = Ctx::new();
            let guarded = Set::parse(
                &ctx,
                "[n, m] -> { [i0] : m >= 2 and i0 >= 0 and 256i0 < m and (n >= 5 or \
                 (n >= 2 and 3*floor((1 + n)/3) <= n) or \
                 (exists (e0, e1: e1 > -5e0 and e0 < 3e1 <= 16 + e0 and 3e1 <= -2 + n - 15e0)) or \
                 (exists (e0, e1: 0 <= e0 <= 15 and 16e1 >= 6 + 5e0 and 48e1 <= 13 + n + 15e0)) or \
                 (exists (e0, e1: 0 <= e0 <= 15 and 16e1 >= 6 + 5e0 and 14 + n + 15e0 <= 48e1 <= 15 + n + 15e0))) }",
            )
            .unwrap();
            let hull = guarded.progression_hull().unwrap();
            let expected = Set::parse(
                &ctx,
                "[n, m] -> { [i0] : n >= 2 and m >= 2 and i0 >= 0 and 256i0 < m }",
            )
            .unwrap();
            assert!(
                hull.subtract(&expected).unwrap().is_empty().unwrap()
                    && expected.subtract(&hull).unwrap().is_empty().unwrap(),
                "{hull}"
            );
        });
    }

    /// A hull isl computes only at great cost (5 s, the fuzzed nest of
    /// `benchmarks/inputs/fuzz-20261130-4488.c`) falls back to the simple hull: bounded, a
    /// superset, within a budget far below what the polyhedral hull spends.
    #[test]
    fn progression_hull_past_its_budget_is_the_simple_hull() {
        let limits = crate::limits::Limits {
            isl_operations: 5_000_000,
            ..crate::limits::current()
        };
        crate::limits::with(limits, || {
            let ctx = Ctx::new();
            let blocks = Set::parse(
                &ctx,
                "[n, i, j] -> { [i0] : 0 < i < n and 0 < j < n and i0 >= 0 and \
                 ((exists (e1: (-1 + i) mod 3 = 0 and e1 > 0 and -1 + 256i0 <= 3e1 <= -2 + n)) or \
                 ((-1 + i) mod 3 = 0 and (-1 + n) mod 3 = 0 and n >= 4 and 256i0 < n)) }",
            )
            .unwrap();
            let hull = blocks.progression_hull().unwrap();
            let bounded =
                Set::parse(&ctx, "[n, i, j] -> { [i0] : 0 <= i0 and 256i0 < n }").unwrap();
            assert!(
                blocks.subtract(&hull).unwrap().is_empty().unwrap(),
                "{hull}"
            );
            assert!(
                hull.subtract(&bounded).unwrap().is_empty().unwrap(),
                "{hull}"
            );
        });
    }

    #[test]
    fn errors_are_values_not_output() {
        let ctx = Ctx::new();
        assert!(Set::parse(&ctx, "{ S[i] : i >= }").is_err());
        // The context still works after an error.
        assert!(Set::parse(&ctx, "{ S[i] : i >= 0 }").is_ok());
    }
}
