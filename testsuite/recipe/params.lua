-- gpucc-args: testsuite/recipe/kernels/matmul_100.c -P TI=32
-- Parameters: TI comes from -P, TJ from its default; arithmetic, if and for, print.
TI = param("TI", {16, 32, 64}, 16)
TJ = param("TJ", {8, 16}, 16)
local threads = TI * TJ
if threads > 1024 then
  TJ = 1024 / TI
end
for r = 1, 2 do
  print("round", r, TI, TJ)
end
tile_by_index({"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
print_code()
