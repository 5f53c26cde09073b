-- gpucc-args: testsuite/recipe/kernels/matmul.c -P TI=8
-- A -P value outside the declared candidates is used as given, with a warning.
TI = param("TI", {16, 32, 64}, 32)
tile_by_index({"i"}, {TI}, {l1_control="ii"}, {"ii", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii"}, thread={"j", "i"}})
print_code()
