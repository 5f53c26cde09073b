/// mimalloc for every allocation of the process, isl's included (its `override` feature
/// replaces `malloc` and `free`): isl allocates and frees small blocks all the time, and
/// glibc's allocator took about 15% of a compile's processor time. Its `no_thp` feature
/// keeps it from asking for transparent huge pages: the kernel clears each 2 MB page when
/// it is first touched, 12% of PolyBench 3mm's processor samples, and a compile is too
/// short for fewer TLB misses to repay that (paired wall time 0.955 of before on 3mm,
/// 0.92 on gemm_nn.c, 1.01 on atax.c; peak memory 102 -> 80 MB on 3mm).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(gpucc::cli::main());
}
