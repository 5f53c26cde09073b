-- gpucc-args: testsuite/cuda/dgemm.c -D N=144
-- Double-buffered DGEMM tiles over the 48 KB a block may declare statically: 128 x 16
-- of A and 16 x 64 of B, padded and twice over, are 53,760 bytes. The kernel declares
-- them in dynamic shared memory (one `extern __shared__` array of bytes, each tile a
-- reference at a 16-byte offset into it), and the host raises the kernel's limit with
-- cudaFuncSetAttribute before it launches it with that many bytes. At N = 144 the last
-- tiles are cut.
tile_by_index({"i", "j", "k"}, {8, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("dgemm_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 2, {width=2})
copy_to_shared("tx", "B", 2, {width=2})
copy_to_registers("kk", "C")
double_buffer("kk", {async=true})
print_code()
