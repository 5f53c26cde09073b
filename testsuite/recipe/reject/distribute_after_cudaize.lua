-- gpucc-args: testsuite/cuda/matvec.c
-- Kernels take whole loop nests: distributing a loop that is already in one is refused.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i", "j"})
cudaize("matvec_kernel", {}, {block={"ii"}, thread={"i"}})
distribute({0, 1}, "i")
