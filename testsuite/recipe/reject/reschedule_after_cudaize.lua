-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- Rescheduling changes loops, which must come before `cudaize`.
cudaize(0, "serial_sweep", {}, {})
reschedule()
