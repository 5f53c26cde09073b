/// mimalloc for every allocation of the process, isl's included (its `override` feature
/// replaces `malloc` and `free`): isl allocates and frees small blocks all the time, and
/// glibc's allocator took about 15% of a compile's processor time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(gpucc::cli::main());
}
