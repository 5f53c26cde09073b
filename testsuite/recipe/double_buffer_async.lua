-- gpucc-args: testsuite/recipe/kernels/matmul.c -D N=128
-- Double-buffered tiles filled by asynchronous copies ({async=true}): each thread's
-- 16-byte vector of A and of B goes from global into shared memory with one cp.async
-- (sm_80 and later; an ordinary load and store before that), no register in between, so
-- that the thread computes on the other buffer while the copies are in flight; it waits
-- for its copies (gpucc_wait_copies) before the barrier that publishes them.
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4, {width=4})
copy_to_shared("tx", "B", 4, {width=4})
copy_to_registers("kk", "C")
double_buffer("kk", {async=true})
print_code()
