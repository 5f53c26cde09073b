-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-steps=1000
-- A loop to infinity stops at the step limit (lowered here to 1000 steps).
n = 0
for i = 1, 1 / 0 do
  n = n + 1
end
