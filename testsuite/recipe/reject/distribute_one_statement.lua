-- gpucc-args: testsuite/cuda/matvec.c
-- Loop `j` encloses only the sum: there is nothing to split.
distribute({1}, "j")
