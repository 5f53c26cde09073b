-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- tile(loop, size, control, tile): one loop at a time; the control loop takes the tiled
-- loop's place.
tile("k", 8, "kk")
tile("i", 16, "ii", "it")
print_code()
permute({"ii", "j", "kk", "it", "k"})
print_code()
cudaize("matmul_kernel", {}, {block={"ii"}, thread={"j"}})
print_code()
