-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- reschedule takes at most the loop whose statements it reorders.
reschedule("i", "j")
