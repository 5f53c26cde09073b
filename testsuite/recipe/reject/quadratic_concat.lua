-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Appending to a string copies it: a million appends would copy terabytes. The copies
-- count as steps (one per 64 bytes), so the recipe stops at the step limit.
s = ""
for i = 1, 1000000 do
  s = s .. "ii, "
end
