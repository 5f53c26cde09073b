-- 2-D convolution (seed 004, Fig. 3.2 and section 6.4): one thread per output pixel in
-- TI x TJ blocks; the block's image tile (with its halo) in shared memory, the mask in
-- constant memory.
TI = param("TI", {8, 16, 32}, 16)
TJ = param("TJ", {8, 16, 32}, 16)
tile_by_index({"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "i", "j", "p", "q"})
cudaize("conv2d_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "in", -16)
copy_to_constant("mask")
unroll_to_depth(2)
