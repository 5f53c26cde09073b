-- gpucc-args: testsuite/deps/gauss_seidel.c -D N=64
-- Every loop of the Gauss-Seidel sweeps carries a dependence: one thread runs them all,
-- in their order.
cudaize("gauss_seidel_kernel", {}, {})
print_code()
