-- gpucc-args: testsuite/recipe/kernels/product.c
-- CUDA has no atomic multiplication: a product stays sequential.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i"})
cudaize("product_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"p"}})
