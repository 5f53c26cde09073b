-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- Skewing by -1 then interchanging: the dependence (1, 0) becomes (-1, 1) and runs
-- backwards.
skew("j", "i", -1)
permute({"j", "i"})
