-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- What print writes is a string too, bounded like the others.
for i = 1, 1000000 do
  print("tile_by_index", i)
end
