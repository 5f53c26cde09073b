-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- A matrix-multiply recipe as CUDA-CHiLL's users wrote them: the fifth argument of
-- tile_by_index is CHiLL's tiling method (`strided` or `counted`; both make the same
-- tiles), and the last order puts the tile loops `i` and `j` above their control loops
-- `iii` and `jjj` (CUDA-CHiLL's cyclic partition: 16 x 16 threads, each computing 2 x 2
-- elements of C 16 apart). The copies pad the shared rows to a length coprime with 16.
tile_by_index({"i", "j"}, {32, 32}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
tile_by_index({"k"}, {16}, {l1_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"}, strided)
tile_by_index({"i", "j"}, {16, 16}, {l1_control="iii", l2_control="jjj"},
              {"ii", "jj", "kk", "i", "iii", "j", "jjj", "k"}, counted)
cudaize("mm_GPU", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
copy_to_registers("kk", "C")
unroll_to_depth(3)
print_code()
