-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- `{[k] = v}` makes a table of k entries: the largest table is bounded.
rows = {}
for i = 1, 100 do
  rows = {rows, {[i * 100000] = i}}
end
