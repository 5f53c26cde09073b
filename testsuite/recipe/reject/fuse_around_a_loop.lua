-- gpucc-args: testsuite/recipe/kernels/three_loops.c
-- Fusing the first and the last loop would move the second loop's statement: refused
-- (fuse all three, or distribute the middle one away).
fuse({0, 2}, "i")
