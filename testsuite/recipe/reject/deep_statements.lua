-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-depth=4
if true then
  for i = 1, 2 do
    if i > 1 then
      for j = 1, 2 do
        if j > 1 then
          print(i, j)
        end
      end
    end
  end
end
