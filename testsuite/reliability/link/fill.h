/* Helpers of testsuite/reliability/linked_source.c, in a file of their own (as PolyBench's
   utilities/polybench.c): the program links with fill.c. */
void fill(int n, float *a);
void print_sum(int n, const float *a);
