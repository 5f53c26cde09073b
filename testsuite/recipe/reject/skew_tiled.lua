-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- Skewing comes before tiling: a tiled loop keeps the shape of its tiles.
tile("j", 16, "jj")
skew("j", "i", 1)
