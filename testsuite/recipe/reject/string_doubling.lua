-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Doubling a string 64 times would need 2^64 bytes: it stops at the string limit.
s = "tile"
for i = 1, 64 do
  s = s .. s
end
