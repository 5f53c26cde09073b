-- gpucc-args: testsuite/deps/trisolve.c
-- Forward substitution: row i needs every x[j] before it. One thread solves in order.
cudaize("trisolve_kernel", {}, {})
print_code()
