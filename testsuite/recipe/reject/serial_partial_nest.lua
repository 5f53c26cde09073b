-- gpucc-args: testsuite/cuda/jacobi2d.c
-- The first nest inside the time loop is a kernel: a serial kernel cannot take the second
-- nest alone, since it takes whole outermost loops.
tile_by_index(0, {"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize(0, "stencil_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
cudaize("copy_serial", {}, {})
