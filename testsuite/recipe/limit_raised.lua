-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-string-bytes=4194304
-- A string of 2 MiB is over the default limit of 1 MiB (reject/string_doubling.lua):
-- `--limit recipe-string-bytes=4194304` raises it.
names = "ii"
for i = 1, 20 do
  names = names .. names
end
print(#names)
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
