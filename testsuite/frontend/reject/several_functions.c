void first(float A[4]) { for (int i = 0; i < 4; i++) A[i] = 0; }
void second(float A[4]) { for (int i = 0; i < 4; i++) A[i] = 1; }
