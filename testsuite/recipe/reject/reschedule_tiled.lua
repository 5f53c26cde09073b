-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- A tiled loop keeps the shape of its tiles: reschedule before tiling.
tile("j", 16, "jj")
reschedule("i")
