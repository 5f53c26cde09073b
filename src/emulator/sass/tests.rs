use super::*;
use crate::emulator::saake::Instr;
use crate::emulator::streams::DRAM;

/// A kernel as nvdisasm prints it: a loop at line 10 (`for`) whose body, line 11,
/// loads with `__ldg` (a header's line, credited to line 11) and accumulates with four
/// FFMAs (ptxas unrolled it four times); the result stored at line 12.
const SASS: &str = r#"
//--------------------- .text._Z1kPKfPf --------------------------
	.section	.text._Z1kPKfPf,"ax",@progbits
_Z1kPKfPf:
.text._Z1kPKfPf:
	//## File "/tmp/kernels.cu", line 9
        /*0000*/                   S2R R7, SR_TID.X ;
        /*0010*/                   BSSY B0, `(.L_x_1) ;
        /*0020*/                   IMAD.WIDE R2, R7, 0x4, R4 ;
        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;
.L_x_0:
	//## File "/usr/include/sm_32_intrinsics.hpp", line 134 inlined at "/tmp/kernels.cu", line 11
        /*0040*/              @!P0 LDG.E.CONSTANT R11, desc[UR4][R2.64] ;
	//## File "/tmp/kernels.cu", line 11
        /*0050*/                   LDS.128 R12, [R0] ;
        /*0060*/                   FFMA R9, R11, R12, R9 ;
        /*0070*/                   FFMA R9, R11, R13, R9 ;
        /*0080*/                   FFMA R9, R11, R14, R9 ;
        /*0090*/                   FFMA R9, R11, R15, R9 ;
	//## File "/tmp/kernels.cu", line 10
        /*00a0*/                   IADD3 R2, P1, R2, 0x40, RZ ;
        /*00b0*/                   ISETP.NE.AND P2, PT, R2, R6, PT ;
        /*00c0*/               @P2 BRA `(.L_x_0) ;
.L_x_1:
	//## File "/tmp/kernels.cu", line 12
        /*00d0*/                   STG.E desc[UR4][R4.64], R9 ;
        /*00e0*/                   EXIT ;
.L_x_2:
        /*00f0*/                   BRA `(.L_x_2);
"#;

fn kernel() -> Kernel {
    let mut k = parse(SASS);
    assert_eq!(k.len(), 1);
    k.remove(0)
}

/// The IR's view of the kernel: `iterations` of the loop at line 10, each one instance
/// of line 11, then the store at line 12.
fn lines(iterations: f64) -> Lines {
    let global = Mem::Global {
        sectors: 32.0,
        asked: 32.0,
        array: Some(0),
        l1: L1::default(),
        read_only: true,
    };
    let mut l = Lines::new(Vec::new());
    l.lines = vec![
        LineWork {
            line: 10,
            loop_trip: Some((1.0, iterations)),
            ..LineWork::default()
        },
        // Per instance: a global load and a shared load of one word, an FMA (2).
        LineWork {
            line: 11,
            instances: iterations,
            work: 4.0,
            words: 1.0,
            region: "statement at line 3".to_string(),
            global_loads: vec![global],
            shared_loads: vec![Mem::shared(1.0)],
            ..LineWork::default()
        },
        LineWork {
            line: 12,
            instances: 1.0,
            work: 1.0,
            words: 1.0,
            global_stores: vec![Mem::Global {
                sectors: 4.0,
                asked: 4.0,
                array: Some(1),
                l1: L1::default(),
                read_only: false,
            }],
            ..LineWork::default()
        },
    ];
    l
}

#[test]
fn a_read_kept_in_a_register_over_the_loop_is_not_taken_by_the_loops_loads() {
    // `C[i][j] += A[i][k] * B[k][j]` with `C` read once before the loop over 512
    // `k`: the loop's SASS loads are those of A and B.
    let global = |sectors| Mem::Global {
        sectors,
        asked: sectors,
        array: None,
        l1: L1::default(),
        read_only: true,
    };
    let mut l = Lines::new(vec![(7, 20)]);
    l.node(7, 512.0, None, 1.0);
    l.load(global(1.0), 1.0);
    l.load(global(2.0), 512.0);
    l.load(global(4.0), 512.0);
    assert_eq!(l.lines[0].global_loads, vec![global(2.0), global(4.0)]);
    assert_eq!(l.lines[0].instances, 512.0);
}

#[test]
fn reads_instructions_lines_registers_and_branch_targets() {
    let k = kernel();
    assert_eq!(k.name, "k");
    let ins = &k.instructions;
    assert_eq!(ins.len(), 16);
    let r = |n: u16| n;
    let p = |n: u16| PREDICATES + n;
    // BSSY names a reconvergence point, not a jump.
    assert_eq!((ins[1].kind, ins[1].target), (Kind::Branch, None));
    // A 64-bit result writes a register pair.
    assert_eq!(ins[2].writes, vec![r(2), r(3)]);
    // ISETP writes its predicate (PT is no register) and reads R7.
    assert_eq!(
        (ins[3].writes.clone(), ins[3].reads.clone()),
        (vec![p(0)], vec![r(7)])
    );
    // A guarded load through a header's line keeps the `.cu` line; it reads its
    // address pair, the uniform descriptor and its guard.
    let load = &ins[4];
    assert_eq!(load.line, Some(11));
    assert!(load.guarded);
    assert_eq!(load.kind, Kind::Load(Space::Global));
    assert_eq!(load.writes, vec![r(11)]);
    assert_eq!(load.reads, vec![r(2), r(3), p(0), UNIFORM + 4]);
    // A 128-bit shared load: four registers, four words.
    assert_eq!(
        (ins[5].writes.clone(), ins[5].words),
        (vec![12, 13, 14, 15], 4)
    );
    // IADD3 with a carry out writes the register and the predicate.
    assert_eq!(ins[10].writes, vec![r(2), p(1)]);
    assert_eq!(
        (ins[12].kind, ins[12].target, ins[12].line),
        (Kind::Branch, Some(4), Some(10))
    );
    assert_eq!(ins[13].kind, Kind::Store(Space::Global));
    assert_eq!(ins[14].kind, Kind::Exit);
}

#[test]
fn a_loop_runs_the_ir_trip_count_over_the_unroll_factor() {
    // Four instances of line 11 per SASS iteration (four FFMAs, four words of LDS,
    // one of LDG: 13 of work against 4 per instance, 3.25, the divisor of 64 nearest
    // it is 4): 64 iterations of the IR loop are 16 of the SASS loop.
    let loops = loops(&kernel(), &lines(64.0)).unwrap();
    assert_eq!(loops.len(), 1, "the end-of-code trap is no loop");
    assert_eq!((loops[0].head, loops[0].back), (4, 12));
    assert_eq!(loops[0].trips, 16.0);
    assert!(loops[0].mapped);
}

#[test]
fn the_stream_follows_ptxas_order_and_register_dependences() {
    let mut b = StreamBuilder::new(1.0, 0.0);
    let total = stream(&kernel(), &lines(64.0), &mut b).unwrap();
    // 16 iterations of the loop's 9 instructions (a global load: 2 entries), and the
    // rest once: S2R, BSSY, IMAD, ISETP; STG (2), EXIT, the trap.
    let per_iteration = 2.0 + 1.0 + 4.0 + 3.0;
    assert_eq!(b.stream.len() as f64, 4.0 + 16.0 * per_iteration + 2.0);
    // EXIT ends the walk: what it walked is all the thread runs (the trap after it
    // is not counted, nor would code on paths not taken be).
    assert_eq!(total, b.stream.len() as f64);
    let fp32: Vec<&Instr> = b
        .stream
        .iter()
        .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
        .collect();
    // IMAD runs on the FMA pipe too.
    assert_eq!(fp32.len(), 1 + 16 * 4);
    // The first FFMA waits for the global load (DRAM) and the shared load.
    let first = b
        .stream
        .iter()
        .position(|i| matches!(i, Instr::Op { resource: FP32, deps, .. } if deps.len() == 2))
        .unwrap();
    let Instr::Op { deps, .. } = &b.stream[first] else {
        unreachable!()
    };
    let pipes: Vec<usize> = deps
        .iter()
        .map(|&d| match &b.stream[d] {
            Instr::Op { resource, .. } => *resource,
            Instr::Barrier => usize::MAX,
        })
        .collect();
    assert_eq!(pipes, vec![DRAM, SHARED]);
    // The 128-bit shared load costs four passes; the global load the line's 32 sectors.
    assert!(b.stream.iter().any(|i| matches!(
        i,
        Instr::Op {
            resource: SHARED,
            count: 4,
            ..
        }
    )));
    assert!(b.stream.iter().any(|i| matches!(
        i,
        Instr::Op {
            resource: DRAM,
            count: 32,
            ..
        }
    )));
}

#[test]
fn unrolled_loads_of_one_line_take_its_accesses_in_turn() {
    // `y += A[i][j] * x[j]` unrolled whole by ptxas: each load runs once. The line's
    // accesses in turn, A (32 sectors), x (4), A, x; not A four times.
    let text = r#"
//--------------------- .text._Z1kPKfPf --------------------------
	.section	.text._Z1kPKfPf,"ax",@progbits
_Z1kPKfPf:
.text._Z1kPKfPf:
	//## File "/tmp/kernels.cu", line 11
        /*0000*/                   LDG.E.CONSTANT R11, desc[UR4][R2.64] ;
        /*0010*/                   LDG.E.CONSTANT R12, desc[UR4][R4.64] ;
        /*0020*/                   LDG.E.CONSTANT R13, desc[UR4][R2.64+0x200] ;
        /*0030*/                   LDG.E.CONSTANT R14, desc[UR4][R4.64+0x200] ;
        /*0040*/                   FFMA R9, R11, R12, R9 ;
        /*0050*/                   FFMA R9, R13, R14, R9 ;
	//## File "/tmp/kernels.cu", line 12
        /*0060*/                   STG.E desc[UR4][R6.64], R9 ;
        /*0070*/                   EXIT ;
"#;
    let k = parse(text).remove(0);
    let global = |sectors: f64, array| Mem::Global {
        sectors,
        asked: sectors,
        array: Some(array),
        l1: L1::default(),
        read_only: true,
    };
    let mut l = lines(2.0);
    l.lines.remove(0);
    l.lines[0].global_loads = vec![global(32.0, 0), global(4.0, 1)];
    let mut b = StreamBuilder::new(1.0, 0.0);
    stream(&k, &l, &mut b).unwrap();
    let dram: Vec<u32> = (b.stream.iter())
        .filter_map(|i| match i {
            Instr::Op {
                resource: DRAM,
                count,
                ..
            } => Some(*count),
            _ => None,
        })
        .collect();
    assert_eq!(
        dram,
        vec![32, 4, 32, 4, 4],
        "the loads in turn, then the store"
    );
}

/// [`SASS`] with a guard that skips the loop (`@P0 BRA` to the store).
fn guarded_loop() -> String {
    SASS.replace(
            "        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;\n",
            "        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;\n        /*0038*/               @P0 BRA `(.L_x_1) ;\n",
        )
}

/// The FP32 instructions of `k`'s stream when line 11 has `instances` instances.
fn fp32_ops(k: &Kernel, instances: f64) -> usize {
    let mut b = StreamBuilder::new(1.0, 0.0);
    stream(k, &lines(instances), &mut b).unwrap();
    b.stream
        .iter()
        .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
        .count()
}

#[test]
fn a_guarded_branch_skips_unrolled_code_the_thread_has_no_instances_for() {
    // One instance of line 11 in all: the unrolled loop (four per iteration) is more
    // than the thread does; the loop itself runs its one iteration when entered, but
    // a guard before it that skips it is taken.
    let k = parse(&guarded_loop()).remove(0);
    let count = |iterations: f64| fp32_ops(&k, iterations);
    assert_eq!(count(1.0), 1, "only the IMAD: the loop is skipped");
    assert_eq!(
        count(64.0),
        1 + 64,
        "the guard falls through: 16 iterations of 4"
    );
}

#[test]
fn a_guarded_branch_over_code_the_walk_did_not_reach_is_taken() {
    // `if (full) { the loop } else { line 30 }` laid out with the else body first:
    // the walk went through the loop (line 10), not line 30's node, so the branch
    // over line 30 is taken and the loop runs its 64 iterations of 4 (not 16).
    let text = guarded_loop().replace(
        "        /*0038*/               @P0 BRA `(.L_x_1) ;\n",
        concat!(
            "        /*0038*/               @!P0 BRA `(.L_x_9) ;\n",
            "\t//## File \"/tmp/kernels.cu\", line 30\n",
            "        /*0039*/                   FADD R9, R9, R9 ;\n",
            "        /*003a*/                   EXIT ;\n",
            ".L_x_9:\n",
        ),
    );
    let k = parse(&text).remove(0);
    let mut l = lines(64.0);
    l.nodes = vec![(1, 10), (2, 11), (3, 12), (4, 30)];
    let mut b = StreamBuilder::new(1.0, 0.0);
    stream(&k, &l, &mut b).unwrap();
    let fp32 = (b.stream.iter())
        .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
        .count();
    assert_eq!(
        fp32,
        1 + 64,
        "the IMAD and the loop's FFMAs, not line 30's FADD"
    );
    // Where line 30 was walked too, the branch falls through as before.
    l.lines.push(LineWork {
        line: 30,
        instances: 1.0,
        work: 1.0,
        words: 1.0,
        ..LineWork::default()
    });
    let mut b = StreamBuilder::new(1.0, 0.0);
    stream(&k, &l, &mut b).unwrap();
    let fp32 = (b.stream.iter())
        .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
        .count();
    assert_eq!(fp32, 2, "the IMAD and the FADD, then the exit");
}

#[test]
fn a_remainder_guarded_iteration_by_iteration_runs_the_iterations_left() {
    // The unrolled loop skipped, then ptxas's remainder: up to three instances of
    // line 11, each after a guard that skips the rest.
    // (The parser reads no meaning into the addresses.)
    let step = concat!(
        "        /*0000*/              @!P3 BRA `(.L_x_3) ;\n",
        "\t//## File \"/tmp/kernels.cu\", line 11\n",
        "        /*0000*/                   LDG.E.CONSTANT R11, desc[UR4][R2.64] ;\n",
        "        /*0000*/                   LDS R12, [R0] ;\n",
        "        /*0000*/                   FFMA R9, R11, R12, R9 ;\n",
        "\t//## File \"/tmp/kernels.cu\", line 10\n",
    );
    let remainder = format!(
        ".L_x_1:\n\t//## File \"/tmp/kernels.cu\", line 10\n{}.L_x_3:\n",
        step.repeat(3)
    );
    let text = guarded_loop().replace(".L_x_1:\n", &remainder);
    let k = parse(&text).remove(0);
    let ffmas = |instances: f64| fp32_ops(&k, instances);
    // The IMAD, then one FFMA per instance the thread has (counting the whole
    // remainder from the first guard, three instances, would skip it all).
    assert_eq!(ffmas(1.0), 1 + 1);
    assert_eq!(ffmas(2.0), 1 + 2);
}

#[test]
fn unroll_factors_snap_to_divisors_of_a_known_trip_count() {
    assert_eq!(nearest_divisor(13.8, 512.0), 16.0);
    assert_eq!(nearest_divisor(3.25, 64.0), 4.0);
    assert_eq!(nearest_divisor(2.6, 20.5), 3.0, "an average count: rounded");
    assert_eq!(nearest_divisor(0.4, 8.0), 1.0);
}

#[test]
fn opcodes_go_to_their_pipes() {
    for (op, kind) in [
        ("FFMA", Kind::Fp32),
        ("IMAD.WIDE.U32", Kind::Fp32),
        ("DFMA", Kind::Fp64),
        ("IADD3.X", Kind::Int),
        ("LOP3.LUT", Kind::Int),
        ("MUFU.EX2", Kind::Special),
        ("LDG.E.128.CONSTANT", Kind::Load(Space::Global)),
        ("STS.64", Kind::Store(Space::Shared)),
        ("LDL", Kind::Load(Space::Local)),
        ("RED.E.ADD.F32.FTZ.RN", Kind::Atomic),
        ("BAR.SYNC.DEFER_BLOCKING", Kind::Barrier),
        ("NOP", Kind::Skip),
    ] {
        assert_eq!(super::kind(op), kind, "{op}");
    }
}
