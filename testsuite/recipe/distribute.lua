-- gpucc-args: testsuite/cuda/matvec.c
-- The initialisation y[i] = 0 and the sum over j each get a loop `i` of their own; the
-- second `i` is chosen by its statement number.
distribute({0, 1}, "i")
tile_by_index(1, {"j"}, {32}, {l1_control="jj"}, {"i", "jj", "j"})
print_code()
tile_by_index(0, {"i"}, {64}, {l1_control="ii"}, {"ii", "i"})
cudaize(0, "matvec_init", {}, {block={"ii"}, thread={"i"}})
cudaize(1, "matvec_kernel", {}, {block={"i"}, thread={"j"}, reduce={"y"}})
print_code()
