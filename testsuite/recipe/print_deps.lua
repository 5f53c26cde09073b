-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- print_deps() shows what the legality checks test against: here j may be mapped to
-- threads, i may not. The i loop stays on the host around the launches.
print_deps()
tile_by_index({"j"}, {32}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize("seidel_kernel", {}, {block={"jj"}, thread={"j"}})
print_code()
