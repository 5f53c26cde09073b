-- gpucc-args: testsuite/strategy/kernels/conv1d.c
-- `w` is a `const float w[5] = {...}` table declared inside the function: each kernel
-- declares its own copy, and `__ldg` on it faults on the GPU (gpu_verify.py found this
-- in the strategy generator's choice); the read-only cache is refused for it.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i"})
cudaize("conv1d_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_texture("w")
