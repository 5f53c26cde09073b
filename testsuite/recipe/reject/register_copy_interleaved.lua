-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Thread tx owns columns 2 tx and 2 tx + 1 of each half of a 64-column tile: 2 tx,
-- 2 tx + 1, 2 tx + 32, 2 tx + 33. They are not one lattice, and the box around them
-- holds other threads' columns.
tile_by_index({"i", "j"}, {16, 64}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
tile_by_index({"j"}, {32}, {l1_control="h"}, {"ii", "jj", "i", "j", "h", "k"})
tile_by_index({"j"}, {2}, {l1_control="t", l1_tile="v"}, {"ii", "jj", "i", "t", "h", "v", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"t", "i"}})
copy_to_registers("tx", "C")
