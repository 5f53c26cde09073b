-- gpucc-args: testsuite/deps/dot.c
-- The sum is split across 256-thread blocks: each thread keeps a partial sum, the block
-- combines them and adds its result to `sum` atomically. `sum = 0` runs first in a serial
-- kernel, and the statements that read the result run in another.
tile_by_index(1, {"i"}, {256}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "dot_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"sum"}})
cudaize(0, "dot_init", {}, {})
cudaize(2, "dot_finish", {}, {})
print_code()
