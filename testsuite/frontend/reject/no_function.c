/* Only declarations: nothing to compile. */
#define N 10
float A[N];
int counter;
