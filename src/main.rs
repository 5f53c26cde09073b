fn main() {
    std::process::exit(gpucc::cli::main());
}
