-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-depth=6
-- The statements nest 4 deep (the call is one) and the expression 5 deep, each within the
-- limit of 6; evaluated inside the statements, the expression nests deeper than 6.
for i = 1, 2 do
  for j = 1, 2 do
    if i < j then
      print(-(-(-i)))
    end
  end
end
