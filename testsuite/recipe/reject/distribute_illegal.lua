-- gpucc-args: testsuite/recipe/kernels/two_updates.c
-- b[i] and a[i + 1] form a recurrence: running every b[i] before any a[i + 1] would read
-- a before it is written.
distribute({0, 1}, "i")
