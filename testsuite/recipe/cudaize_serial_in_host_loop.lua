-- gpucc-args: testsuite/strategy/kernels/host_loop_serial_part.c -D N=256
-- `k` carries a dependence: the row kernel keeps it on the host (a loop of launches), and
-- `cudaize` with statement 0 and no block or thread loops makes a serial kernel of the
-- statement of `k`'s own body, launched at each iteration of `k` before the row kernel.
tile_by_index(1, {"j"}, {64}, {l1_control="jj"}, {"k", "jj", "j"})
cudaize(1, "row_kernel", {}, {block={"jj"}, thread={"j"}})
cudaize(0, "diag_kernel", {}, {})
print_code()
