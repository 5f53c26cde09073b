//! Abstract kernel emulation and sensitivity analysis (seed 000, "SAAKE": §3 and §4,
//! Algorithm 1).
//!
//! Every hardware resource of an SM (global memory, the FP32 pipes, shared memory, ...)
//! is a pipe with a *latency* (cycles until a dependent instruction may use the result)
//! and a *gap* (cycles between two admissions: the inverse of its throughput). The warps
//! resident on one SM run an abstract instruction stream each: which resource an
//! instruction uses, and which earlier instructions of the same warp it waits for.
//! [`emulate`] schedules them greedy-then-oldest: the current warp keeps issuing while its
//! next instruction is ready; when it stalls, the warp whose next instruction is ready
//! earliest (the oldest on ties) takes over. An issued instruction enters its resource at
//! `max(t, pipe_admit[r])`, finishes `latency[r]` later, and keeps the resource from
//! admitting another for `gap[r]`.
//!
//! One correction to the published pseudocode (DESIGN §8): when the current warp stalls,
//! the clock moves to the earliest ready time of the other warps *but never backwards*
//! (`t <- max(t, earliest)`): a warp whose earliest time was computed in the past would
//! otherwise rewind the clock.
//!
//! [`sensitivity`] re-runs the emulation with each resource's latency, then its gap,
//! raised by 10%, and reports the normalised sensitivities `(dT/T) / (dX/X)`: the resource
//! with the largest is the bottleneck, latency-bound when its latency sensitivity
//! dominates, throughput-bound when its gap's does (§3.3).

/// A pipelined resource: its name, latency and gap in cycles.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub name: String,
    pub latency: f64,
    pub gap: f64,
}

impl Resource {
    pub fn new(name: &str, latency: f64, gap: f64) -> Resource {
        Resource {
            name: name.to_string(),
            latency,
            gap,
        }
    }
}

/// One abstract instruction of a warp's stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Instr {
    /// Uses resource `resource` once its predecessors `deps` (indices of earlier
    /// instructions of the same stream) have finished, for `count` consecutive admissions
    /// (an uncoalesced access moves several sectors; 1 in Algorithm 1).
    Op {
        resource: usize,
        deps: Vec<usize>,
        count: u32,
    },
    /// `__syncthreads()`: the warp waits until every warp of its block has reached the
    /// barrier and every instruction they issued before it has finished (§4.4), but for
    /// those on the workload's `unwaited` resources.
    Barrier,
}

/// The part of `stream` from instruction `from` on, as a stream of its own: dependences
/// on instructions before `from` are taken as met.
pub fn tail(stream: &[Instr], from: usize) -> Vec<Instr> {
    stream[from.min(stream.len())..]
        .iter()
        .map(|i| match i {
            Instr::Op {
                resource,
                deps,
                count,
            } => Instr::Op {
                resource: *resource,
                deps: deps
                    .iter()
                    .filter(|&&d| d >= from)
                    .map(|d| d - from)
                    .collect(),
                count: *count,
            },
            Instr::Barrier => Instr::Barrier,
        })
        .collect()
}

/// What runs on one SM: `blocks` blocks of `warps_per_block` warps, every warp running
/// `stream`.
#[derive(Clone, Debug)]
pub struct Workload<'a> {
    pub stream: &'a [Instr],
    pub warps_per_block: usize,
    pub blocks: usize,
    /// Instructions issued per cycle: 1 in Algorithm 1, and for the one warp scheduler of
    /// an SM processing block that gpucc emulates (`kernel::Partition`).
    pub issue_per_cycle: usize,
    /// Resources whose operations a barrier does not wait for (seed 000 §4.4 has it wait
    /// for every instruction; a GPU's `BAR.SYNC` does not wait for global loads and
    /// stores in flight, only the instructions that use a load's result do: ptxas moves
    /// loads above barriers for that overlap).
    pub unwaited: &'a [usize],
}

/// The warps waiting for the current one to stall, each with the time it may go on.
struct Waiting {
    /// Per warp: when it may go on (infinite for the current warp and those that wait at
    /// a barrier or have finished).
    wake: Vec<f64>,
    /// Per group of [`Waiting::GROUP`] warps, the soonest of their times: the search for
    /// the oldest ready warp skips the groups none of which is.
    soonest: Vec<f64>,
}

impl Waiting {
    const GROUP: usize = 8;

    /// All `warps` warps ready at 0 but the first (the current one).
    fn new(warps: usize) -> Waiting {
        let mut w = Waiting {
            wake: vec![0.0; warps],
            soonest: vec![0.0; warps.div_ceil(Waiting::GROUP)],
        };
        if warps > 0 {
            w.wake[0] = f64::INFINITY;
            w.regroup(0);
        }
        w
    }

    /// Warp `warp` waits until `at`.
    fn wait(&mut self, warp: usize, at: f64) {
        self.wake[warp] = at;
        let g = &mut self.soonest[warp / Waiting::GROUP];
        *g = g.min(at);
    }

    /// The warp that takes over at `t`: the oldest (lowest index) whose time has come;
    /// when none has, the clock moves (never backwards) to the soonest time first. `None`:
    /// no warp waits for a time (every unfinished one waits at a barrier).
    fn next(&mut self, t: &mut f64) -> Option<usize> {
        let g = match self.soonest.iter().position(|&s| s <= *t) {
            Some(g) => g,
            None => {
                let soonest = self.soonest.iter().fold(f64::INFINITY, |a, &b| a.min(b));
                if soonest == f64::INFINITY {
                    return None;
                }
                *t = t.max(soonest);
                self.soonest.iter().position(|&s| s <= *t)?
            }
        };
        let x = g * Waiting::GROUP + self.group(g).iter().position(|&w| w <= *t)?;
        self.wake[x] = f64::INFINITY;
        self.regroup(g);
        Some(x)
    }

    /// The wake times of group `g`'s warps.
    fn group(&self, g: usize) -> &[f64] {
        let first = g * Waiting::GROUP;
        &self.wake[first..(first + Waiting::GROUP).min(self.wake.len())]
    }

    /// Recomputes group `g`'s soonest time.
    fn regroup(&mut self, g: usize) {
        self.soonest[g] = self.group(g).iter().fold(f64::INFINITY, |a, &b| a.min(b));
    }
}

/// A stream laid out for the emulation's inner loops (each instruction is issued once per
/// warp): per instruction its resource ([`Flat::BARRIER`] for a barrier) and admissions,
/// and its dependences as one range of a single array.
struct Flat {
    resource: Vec<u32>,
    count: Vec<u32>,
    deps_from: Vec<u32>,
    deps: Vec<u32>,
    /// The finish times a warp keeps: a power of two beyond the farthest dependence, so
    /// that instruction `i`'s is at `i & mask` (a warp's times stay in the cache).
    mask: usize,
}

impl Flat {
    const BARRIER: u32 = u32::MAX;

    fn new(stream: &[Instr]) -> Flat {
        let mut f = Flat {
            resource: Vec::with_capacity(stream.len()),
            count: Vec::with_capacity(stream.len()),
            deps_from: Vec::with_capacity(stream.len() + 1),
            deps: Vec::new(),
            mask: 0,
        };
        let mut farthest = 0;
        for (k, i) in stream.iter().enumerate() {
            f.deps_from.push(f.deps.len() as u32);
            match i {
                Instr::Op {
                    resource,
                    deps,
                    count,
                } => {
                    f.resource.push(*resource as u32);
                    f.count.push((*count).max(1));
                    f.deps.extend(deps.iter().map(|&d| d as u32));
                    farthest = deps.iter().map(|&d| k - d).fold(farthest, usize::max);
                }
                Instr::Barrier => {
                    f.resource.push(Flat::BARRIER);
                    f.count.push(1);
                }
            }
        }
        f.deps_from.push(f.deps.len() as u32);
        f.mask = (farthest + 1).next_power_of_two() - 1;
        f
    }

    /// Room for the finish times `warps` warps keep.
    fn times(&self, warps: usize) -> Vec<f64> {
        vec![0.0; (self.mask + 1) * warps]
    }

    /// Where warp `warp` keeps instruction `i`'s finish time.
    fn at(&self, warp: usize, i: usize) -> usize {
        (warp * (self.mask + 1)) | (i & self.mask)
    }

    /// When warp `warp`'s instruction `i` may issue: the latest finish of its
    /// dependences in `fin` and `from`.
    fn ready(&self, warp: usize, i: usize, fin: &[f64], from: f64) -> f64 {
        let deps = &self.deps[self.deps_from[i] as usize..self.deps_from[i + 1] as usize];
        deps.iter()
            .map(|&d| fin[self.at(warp, d as usize)])
            .fold(from, |a, b| if b > a { b } else { a })
    }
}

/// The outcome of an emulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Emulation {
    /// Cycles until the last instruction of any warp finishes.
    pub cycles: f64,
    /// Per resource: the cycles it was busy (Algorithm 1, line 25).
    pub utilization: Vec<f64>,
    /// The order in which the scheduler issued (warp, instruction), barriers included
    /// (32-bit: the order is as long as all warps' streams together).
    pub order: Vec<(u32, u32)>,
}

/// Emulates `w` on `resources` (Algorithm 1, greedy-then-oldest).
pub fn emulate(resources: &[Resource], w: &Workload) -> Emulation {
    run(resources, w, true)
}

/// The cycles of [`emulate`] alone (what ranking needs: the issue order is not kept).
pub fn cycles(resources: &[Resource], w: &Workload) -> f64 {
    run(resources, w, false).cycles
}

/// [`emulate`], keeping the issue order when `record` says so.
fn run(resources: &[Resource], w: &Workload, record: bool) -> Emulation {
    let warps = w.warps_per_block * w.blocks;
    let flat = Flat::new(w.stream);
    let n = w.stream.len();
    let issue = w.issue_per_cycle.max(1) as f64;
    let latency: Vec<f64> = resources.iter().map(|r| r.latency).collect();
    let gap: Vec<f64> = resources.iter().map(|r| r.gap).collect();
    let mut fin = flat.times(warps);
    let mut cur = vec![0usize; warps];
    let mut pipe_admit = vec![f64::NEG_INFINITY; resources.len()];
    let mut start = vec![f64::NEG_INFINITY; resources.len()];
    let mut utilization = vec![0.0f64; resources.len()];
    // Barriers: per block, the warps waiting and the time the last instruction before the
    // barrier finishes; a warp released from a barrier may go on at `released[w]`.
    let mut waiting = vec![0usize; w.blocks];
    let mut released = vec![0.0f64; warps];
    let mut at_barrier = vec![false; warps];
    let mut last_finish = vec![0.0f64; warps];
    // Per warp: when its instructions a barrier waits for are finished.
    let mut synced = vec![0.0f64; warps];
    let waited: Vec<bool> = (0..resources.len())
        .map(|r| !w.unwaited.contains(&r))
        .collect();
    let mut t = 0.0f64;
    let mut current = 0usize;
    let mut order = Vec::with_capacity(if record { warps * n } else { 0 });
    let mut others = Waiting::new(warps);
    let mut done = if n == 0 { warps } else { 0 };
    // Whether the current warp is known to be ready by `t`: one just taken over is (its
    // `wake` was when its next instruction may issue: 0 at the start, the time it stalled
    // for, or when its barrier opened).
    let mut known_ready = false;
    while done < warps {
        let i = cur[current];
        if !known_ready {
            // When the current warp's next instruction may issue (never: finished, or
            // waiting at a barrier).
            let e = if i >= n || at_barrier[current] {
                f64::INFINITY
            } else {
                flat.ready(current, i, &fin, released[current])
            };
            if e > t {
                // The current warp stalls: the one ready first takes over (the oldest on
                // ties), and the clock moves to its time, never backwards.
                others.wait(current, e);
                let next = others.next(&mut t);
                match next {
                    Some(x) => {
                        current = x;
                        known_ready = true;
                        continue;
                    }
                    // Every unfinished warp waits at a barrier that cannot open: a
                    // malformed stream (a barrier some warps of a block never reach).
                    None => break,
                }
            }
        }
        known_ready = false;
        if record {
            order.push((current as u32, i as u32));
        }
        let r = flat.resource[i];
        if r != Flat::BARRIER {
            let r = r as usize;
            let extra = gap[r] * (flat.count[i] - 1) as f64;
            let begin = t.max(pipe_admit[r]);
            let f = begin + extra + latency[r];
            fin[flat.at(current, i)] = f;
            last_finish[current] = last_finish[current].max(f);
            if waited[r] {
                synced[current] = synced[current].max(f);
            }
            pipe_admit[r] = begin + extra + gap[r];
            utilization[r] += (t - start[r]).min(latency[r]);
            start[r] = t;
            cur[current] += 1;
            if cur[current] == n {
                done += 1;
            }
            t += 1.0 / issue;
        } else {
            let block = current / w.warps_per_block.max(1);
            fin[flat.at(current, i)] = synced[current];
            at_barrier[current] = true;
            waiting[block] += 1;
            if waiting[block] == w.warps_per_block {
                let first = block * w.warps_per_block;
                let members = first..first + w.warps_per_block;
                let open = members.clone().map(|x| synced[x]).fold(t, f64::max);
                for x in members {
                    at_barrier[x] = false;
                    released[x] = open;
                    cur[x] += 1;
                    if cur[x] == n {
                        done += 1;
                    } else if x != current {
                        // Its next instruction may wait for memory the barrier did not.
                        others.wait(x, flat.ready(x, cur[x], &fin, open));
                    }
                }
                waiting[block] = 0;
            }
        }
    }
    let cycles = last_finish.iter().copied().fold(0.0, f64::max);
    Emulation {
        cycles,
        utilization,
        order,
    }
}

/// The time of `w` on `resources` when the instructions issue in `order` (as an earlier
/// [`emulate`] chose it): each issues at the later of one issue slot after the previous
/// one and the time its operands are ready, enters its resource when that admits it, and
/// finishes a latency later. Every time is a maximum of sums of latencies and gaps, so a
/// larger latency or gap never makes it shorter — which a fresh greedy schedule does not
/// guarantee (a later result can reorder the warps into a tighter packing, by a cycle or
/// two: Graham's scheduling anomalies). With the parameters `order` was made with, it
/// reproduces [`emulate`]'s time exactly.
pub fn replay(resources: &[Resource], w: &Workload, order: &[(u32, u32)]) -> f64 {
    replay_with(resources.len(), w, order, |_, r| {
        (resources[r].latency, resources[r].gap)
    })
}

/// [`replay`] on `resources` pipes with the latency and gap of each instruction given by
/// `pipe(instruction, resource)`: a resource may be slower for some instructions only (a
/// code region).
fn replay_with(
    resources: usize,
    w: &Workload,
    order: &[(u32, u32)],
    pipe: impl Fn(usize, usize) -> (f64, f64),
) -> f64 {
    let warps = w.warps_per_block * w.blocks;
    let flat = Flat::new(w.stream);
    let issue = w.issue_per_cycle.max(1) as f64;
    let mut fin = flat.times(warps);
    let mut pipe_admit = vec![f64::NEG_INFINITY; resources];
    let mut released = vec![0.0f64; warps];
    let mut last_finish = vec![0.0f64; warps];
    let mut synced = vec![0.0f64; warps];
    let waited: Vec<bool> = (0..resources).map(|r| !w.unwaited.contains(&r)).collect();
    let mut arrived = vec![0usize; w.blocks];
    let mut t = f64::NEG_INFINITY;
    let mut next_slot = 0.0f64;
    for &(warp, i) in order {
        let (warp, i) = (warp as usize, i as usize);
        let r = flat.resource[i];
        if r != Flat::BARRIER {
            let r = r as usize;
            let ready = flat.ready(warp, i, &fin, released[warp]);
            t = next_slot.max(ready);
            let (latency, gap) = pipe(i, r);
            let extra = gap * (flat.count[i] - 1) as f64;
            let begin = t.max(pipe_admit[r]);
            let f = begin + extra + latency;
            fin[flat.at(warp, i)] = f;
            last_finish[warp] = last_finish[warp].max(f);
            if waited[r] {
                synced[warp] = synced[warp].max(f);
            }
            pipe_admit[r] = begin + extra + gap;
            next_slot = t + 1.0 / issue;
        } else {
            let block = warp / w.warps_per_block.max(1);
            fin[flat.at(warp, i)] = synced[warp];
            arrived[block] += 1;
            if arrived[block] == w.warps_per_block {
                let first = block * w.warps_per_block;
                let members = first..first + w.warps_per_block;
                let open = members
                    .clone()
                    .map(|x| synced[x])
                    .fold(t.max(next_slot - 1.0 / issue).max(0.0), f64::max);
                for x in members {
                    released[x] = open;
                }
                arrived[block] = 0;
            }
        }
    }
    last_finish.iter().copied().fold(0.0, f64::max)
}

/// The sensitivity of the time to one resource's latency and gap.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensitivity {
    pub resource: String,
    /// `(dT/T) / (dL/L)` for a 10% larger latency.
    pub latency: f64,
    /// `(dT/T) / (dG/G)` for a 10% larger gap.
    pub gap: f64,
}

/// The bottleneck: the most sensitive resource, and whether its latency or its
/// throughput (gap) limits the time.
#[derive(Clone, Debug, PartialEq)]
pub struct Bottleneck {
    pub resource: String,
    /// `latency` or `throughput`.
    pub mode: &'static str,
}

impl Bottleneck {
    /// `dram:throughput`, as `--json` writes it.
    pub fn label(&self) -> String {
        format!("{}:{}", self.resource, self.mode)
    }
}

/// How much a 10% raise of each latency and each gap lengthens the emulated time (§3.3),
/// and the bottleneck. The raised runs replay the issue order of `run` (the [`emulate`] of
/// `w` on `resources`, [`replay`]), so that what is measured is the resource's effect, not
/// a reshuffled schedule. Resources the workload never uses have sensitivity 0.
pub fn sensitivity(
    resources: &[Resource],
    w: &Workload,
    run: &Emulation,
) -> (Vec<Sensitivity>, Bottleneck) {
    const RAISE: f64 = 0.1;
    let base = run.cycles.max(f64::MIN_POSITIVE);
    // Each raise replays the whole stream: half of them on a second core where there is
    // one (the compile's last step, on one thread otherwise).
    let raises: Vec<(usize, bool)> = (0..resources.len())
        .flat_map(|k| [(k, true), (k, false)])
        .collect();
    let changed = |&(k, latency): &(usize, bool)| -> f64 {
        let mut r = resources.to_vec();
        if latency {
            r[k].latency *= 1.0 + RAISE;
        } else {
            r[k].gap *= 1.0 + RAISE;
        }
        (replay(&r, w, &run.order) - base) / base / RAISE
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (first, second) = raises.split_at(raises.len() / 2);
    let values: Vec<f64> = if cores > 1 && first.len() >= 2 {
        std::thread::scope(|s| {
            let other = s.spawn(|| second.iter().map(changed).collect::<Vec<f64>>());
            let mut values: Vec<f64> = first.iter().map(changed).collect();
            match other.join() {
                Ok(v) => values.extend(v),
                Err(_) => values.extend(second.iter().map(changed)),
            }
            values
        })
    } else {
        raises.iter().map(changed).collect()
    };
    let out: Vec<Sensitivity> = (0..resources.len())
        .map(|k| Sensitivity {
            resource: resources[k].name.clone(),
            latency: values[2 * k],
            gap: values[2 * k + 1],
        })
        .collect();
    let top = out
        .iter()
        .max_by(|a, b| a.latency.max(a.gap).total_cmp(&b.latency.max(b.gap)))
        .cloned();
    let bottleneck = match top {
        Some(s) => Bottleneck {
            resource: s.resource.clone(),
            mode: if s.latency >= s.gap {
                "latency"
            } else {
                "throughput"
            },
        },
        None => Bottleneck {
            resource: "none".to_string(),
            mode: "latency",
        },
    };
    (out, bottleneck)
}

/// The sensitivity of the kernel's time to one resource within one code region.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSensitivity {
    pub region: String,
    pub resource: String,
    pub latency: f64,
    pub gap: f64,
}

/// Region-wise sensitivity (seed 000 §5, Table 4): the latency, then the gap, of
/// `resource` raised by 10% for the instructions of one region only (`regions[i]` is
/// instruction `i`'s region, named in `names`), replaying `run`'s order; as a share of the
/// whole kernel's time, like the overall sensitivities.
pub fn region_sensitivities(
    resources: &[Resource],
    w: &Workload,
    run: &Emulation,
    regions: &[usize],
    names: &[String],
    resource: usize,
) -> Vec<RegionSensitivity> {
    const RAISE: f64 = 0.1;
    let base = run.cycles.max(f64::MIN_POSITIVE);
    let mut out = Vec::new();
    for (region, name) in names.iter().enumerate() {
        let uses = regions.iter().enumerate().any(|(i, r)| {
            *r == region && matches!(&w.stream[i], Instr::Op { resource: x, .. } if *x == resource)
        });
        if !uses {
            continue;
        }
        let changed = |latency: bool| -> f64 {
            let time = replay_with(resources.len(), w, &run.order, |i, r| {
                let p = &resources[r];
                if r == resource && regions.get(i) == Some(&region) {
                    if latency {
                        (p.latency * (1.0 + RAISE), p.gap)
                    } else {
                        (p.latency, p.gap * (1.0 + RAISE))
                    }
                } else {
                    (p.latency, p.gap)
                }
            });
            (time - base) / base / RAISE
        };
        out.push(RegionSensitivity {
            region: name.clone(),
            resource: resources[resource].name.clone(),
            latency: changed(true),
            gap: changed(false),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streams_tail_keeps_its_own_dependences_renumbered() {
        let op = |deps: Vec<usize>| Instr::Op {
            resource: 0,
            deps,
            count: 1,
        };
        let stream = vec![op(vec![]), op(vec![0]), Instr::Barrier, op(vec![0, 1, 2])];
        assert_eq!(
            tail(&stream, 1),
            vec![op(vec![]), Instr::Barrier, op(vec![0, 1])]
        );
        assert_eq!(tail(&stream, 9), Vec::<Instr>::new());
    }

    /// `chains` independent warps, each `phases` instructions on one resource, each
    /// depending on the one before: §3.2's setting (C = chains, P = phases).
    fn chains(l: f64, g: f64, c: usize, p: usize) -> f64 {
        let stream: Vec<Instr> = (0..p)
            .map(|k| Instr::Op {
                resource: 0,
                deps: if k == 0 { vec![] } else { vec![k - 1] },
                count: 1,
            })
            .collect();
        let w = Workload {
            stream: &stream,
            warps_per_block: 1,
            blocks: c,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        emulate(&[Resource::new("fu", l, g)], &w).cycles
    }

    #[test]
    fn the_single_resource_formulas_of_section_3() {
        // Latency-limited (L > C G): T = L P + (C - 1) G.
        assert_eq!(chains(100.0, 20.0, 3, 4), 440.0);
        // Throughput-limited (L <= C G): T = L + (C P - 1) G.
        assert_eq!(chains(100.0, 20.0, 8, 4), 720.0);
    }

    /// One admission of `resource` after `deps`.
    fn op(resource: usize, deps: Vec<usize>) -> Instr {
        Instr::Op {
            resource,
            deps,
            count: 1,
        }
    }

    /// The three warps of Fig. 5: global memory L = 500, G = 100; the functional unit
    /// L = 100, G = 20. Each warp: S1 = G[..] (memory); S2 = a * b; S3 = S2 * c; S4 = S3 * d;
    /// S5 = G[S1] (memory, after S1).
    fn figure_5() -> (Vec<Resource>, Vec<Instr>) {
        let resources = vec![
            Resource::new("global", 500.0, 100.0),
            Resource::new("fu", 100.0, 20.0),
        ];
        let stream = vec![
            op(0, vec![]),
            op(1, vec![]),
            op(1, vec![1]),
            op(1, vec![2]),
            op(0, vec![0]),
        ];
        (resources, stream)
    }

    #[test]
    fn the_trace_of_figure_5() {
        let (resources, stream) = figure_5();
        let w = Workload {
            stream: &stream,
            warps_per_block: 3,
            blocks: 1,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        // The figure's first steps: S11 issues at 0 and finishes at 500, S12 at 1 -> 101,
        // S21 at 2 -> max(2, 100) + 500 = 600, S22 at 3 -> max(3, 21) + 100 = 121,
        // S31 at 4 -> 700, S32 at 5 -> max(5, 41) + 100 = 141; then the clock jumps to
        // 101 for S13 -> max(101, 61) + 100 = 201. The rest follows from the same rules:
        // the memory pipe admits S15, S25, S35 at 500, 600, 700 (after the three S?1,
        // gap 100), each finishing 500 later.
        let e = emulate(&resources, &w);
        assert_eq!(e.cycles, 1200.0);
        // Step by step, on a single warp of it: S1 (0 -> 500), S2 (1 -> 101), S3 waits
        // for S2 (101 -> 201), S4 (201 -> 301), S5 waits for S1 (500 -> 1000).
        let one = Workload {
            blocks: 1,
            warps_per_block: 1,
            ..w
        };
        assert_eq!(emulate(&resources, &one).cycles, 1000.0);
    }

    #[test]
    fn a_replayed_schedule_never_shortens_when_a_latency_or_gap_grows() {
        // A small pseudo-random family of streams.
        let mut seed: u64 = 12345;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..3000 {
            let len = 3 + next(20) as usize;
            let stream: Vec<Instr> = (0..len)
                .map(|k| {
                    if k > 0 && next(9) == 0 {
                        Instr::Barrier
                    } else {
                        let deps = if k > 0 && next(2) == 0 {
                            vec![next(k as u64) as usize]
                        } else {
                            vec![]
                        };
                        Instr::Op {
                            resource: next(3) as usize,
                            deps,
                            count: 1 + next(3) as u32,
                        }
                    }
                })
                .collect();
            let resources = vec![
                Resource::new("a", 1.0 + next(500) as f64, 1.0 + next(50) as f64),
                Resource::new("b", 1.0 + next(100) as f64, 1.0 + next(10) as f64),
                Resource::new("c", 1.0 + next(30) as f64, 1.0 + next(4) as f64),
            ];
            // Half the time, the barriers do not wait for resource `a` (as for memory).
            let unwaited: &[usize] = if next(2) == 0 { &[0] } else { &[] };
            let w = Workload {
                stream: &stream,
                warps_per_block: 1 + next(4) as usize,
                blocks: 1 + next(3) as usize,
                issue_per_cycle: 1,
                unwaited,
            };
            let run = emulate(&resources, &w);
            let base = run.cycles;
            // The replay of the same order reproduces the emulation, as does the emulation
            // that keeps no order.
            assert_eq!(replay(&resources, &w, &run.order), base, "{stream:?}");
            assert_eq!(cycles(&resources, &w), base, "{stream:?}");
            for k in 0..3 {
                for latency in [true, false] {
                    let mut r = resources.clone();
                    if latency {
                        r[k].latency *= 1.5;
                    } else {
                        r[k].gap *= 1.5;
                    }
                    let t = replay(&r, &w, &run.order);
                    assert!(t >= base, "{stream:?} {resources:?} {t} < {base}");
                }
            }
        }
    }

    #[test]
    fn a_barrier_waits_for_every_warp_of_the_block() {
        let resources = vec![
            Resource::new("mem", 400.0, 1.0),
            Resource::new("fu", 4.0, 1.0),
        ];
        let stream = vec![op(0, vec![]), Instr::Barrier, op(1, vec![])];
        let w = Workload {
            stream: &stream,
            warps_per_block: 2,
            blocks: 1,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        // Loads at 0 and 1 finish at 400 and 401; after the barrier, the adds run at 401
        // and 402 and finish 4 later.
        assert_eq!(emulate(&resources, &w).cycles, 406.0);
    }

    #[test]
    fn a_barrier_does_not_wait_for_memory_in_flight_only_its_users_do() {
        // Each warp: a load, an add, the barrier, an add, and an add that uses the load.
        let resources = vec![
            Resource::new("mem", 400.0, 1.0),
            Resource::new("fu", 4.0, 1.0),
        ];
        let stream = vec![
            op(0, vec![]),
            op(1, vec![]),
            Instr::Barrier,
            op(1, vec![]),
            op(1, vec![0]),
        ];
        let run = |unwaited: &[usize]| {
            let w = Workload {
                stream: &stream,
                warps_per_block: 2,
                blocks: 1,
                issue_per_cycle: 1,
                unwaited,
            };
            let order = emulate(&resources, &w).order;
            (
                emulate(&resources, &w).cycles,
                replay(&resources, &w, &order),
            )
        };
        // Warp 0 issues its load at 0 (-> 400) and its add at 1 (-> 5); warp 1 its load
        // at 2 (-> 402) and its add at 3 (-> 7). Seed 000's barrier waits for the loads:
        // it opens at 402, the adds after it finish at 406 and 407, the users of the
        // loads at 408 and 409.
        assert_eq!(run(&[]), (409.0, 409.0));
        // A GPU's opens once the adds before it are done (7): the adds after it are done
        // long before the loads, and the users of the loads wait for them alone (402,
        // + 4).
        assert_eq!(run(&[0]), (406.0, 406.0));
    }

    #[test]
    fn sensitivity_names_the_bottleneck_and_its_mode() {
        let (resources, stream) = figure_5();
        // One warp: the memory latency is the whole story.
        let one = Workload {
            stream: &stream,
            warps_per_block: 1,
            blocks: 1,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        let (_, b) = sensitivity(&resources, &one, &emulate(&resources, &one));
        assert_eq!(b.label(), "global:latency");
        // Many warps of back-to-back loads: the memory pipe's gap.
        let loads = vec![Instr::Op {
            resource: 0,
            deps: vec![],
            count: 1,
        }];
        let many = Workload {
            stream: &loads,
            warps_per_block: 32,
            blocks: 2,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        let (s, b) = sensitivity(&resources, &many, &emulate(&resources, &many));
        assert_eq!(b.label(), "global:throughput");
        assert_eq!(s[1].latency, 0.0, "the unused unit has no influence");
    }

    #[test]
    fn region_sensitivities_split_a_resource_between_the_regions_that_use_it() {
        // Figure 5's stream: the two loads in region 0, the arithmetic chain in region 1.
        let (resources, stream) = figure_5();
        let regions = [0, 1, 1, 1, 0];
        let names = ["loads".to_string(), "chain".to_string()];
        let w = Workload {
            stream: &stream,
            warps_per_block: 1,
            blocks: 1,
            issue_per_cycle: 1,
            unwaited: &[],
        };
        let run = emulate(&resources, &w);
        let (overall, _) = sensitivity(&resources, &w, &run);
        let global = region_sensitivities(&resources, &w, &run, &regions, &names, 0);
        // Only region 0 uses the memory pipe: it carries the whole sensitivity.
        assert_eq!(global.len(), 1);
        assert_eq!(global[0].region, "loads");
        assert!((global[0].latency - overall[0].latency).abs() < 1e-12);
        let fu = region_sensitivities(&resources, &w, &run, &regions, &names, 1);
        assert_eq!(fu.len(), 1);
        assert_eq!(fu[0].region, "chain");
        assert!((fu[0].latency - overall[1].latency).abs() < 1e-12);
    }
}
