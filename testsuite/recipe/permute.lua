-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Interchanging matmul's loops is legal: only the k reduction carries dependences.
permute({"k", "i", "j"})
print_code()
permute({"j", "i", "k"})
print_code()
cudaize("matmul_kernel", {}, {block={"j"}, thread={"i"}})
print_code()
