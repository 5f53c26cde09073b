-- Transposed matrix-vector product y = A^T x with coalesced columns and the sum split over
-- blocks: a block takes TJ consecutive columns (one thread each, so that a warp reads 32
-- consecutive elements of a row of A) and TI rows of them (blockIdx.y); each thread sums
-- its column over those rows in a register and adds the result to y[j] atomically
-- (`reduce=` with an element per thread). The initialisation y[j] = 0 gets a loop nest,
-- and a kernel, of its own (`distribute`). With M / TI blocks along y, a few thousand
-- columns fill the GPU, where one thread per column would leave most of it idle.
TJ = param("TJ", {64, 128, 256}, 128)
TI = param("TI", {64, 128, 256, 512}, 256)
distribute({0, 1}, "j")
tile_by_index(0, {"j"}, {256}, {l1_control="jjs"}, {"jjs", "j"})
cudaize(0, "matvec_transposed_init", {}, {block={"jjs"}, thread={"j"}})
tile_by_index(1, {"j", "i"}, {TJ, TI}, {l1_control="jj", l2_control="ii"}, {"jj", "ii", "j", "i"})
cudaize(1, "matvec_transposed_kernel", {}, {block={"jj", "ii"}, thread={"j"}, reduce={"y"}})
