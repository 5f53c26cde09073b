-- gpucc-args: testsuite/recipe/kernels/two_updates.c
-- Shifting the update of a[i + 1] one iteration later would run it after the next
-- iteration's b[i] has read a.
shift(1, "i", 1)
