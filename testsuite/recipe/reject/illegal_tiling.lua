-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- Tiling both loops puts j's tile loop outside i's points: the (1, -1) dependence breaks.
tile_by_index({"i", "j"}, {8, 8}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
