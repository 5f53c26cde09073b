cudaize("cube_kernel", {}, {block={}, thread={"i", "j", "k"}})
