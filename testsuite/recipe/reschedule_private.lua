-- gpucc-args: testsuite/recipe/kernels/private_reuse.c
-- The definition of the private scalar `t0` and its use stay in one loop; one thread
-- runs the result, which the check compares with the C.
reschedule(0, "i")
print_code()
cudaize("private_reuse_serial", {}, {})
