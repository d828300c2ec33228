// Spins on a value in global memory that nothing will ever write.
__global__ void k(float* out) {
    volatile float* watched = out;
    while (*watched != 12345.0f) __nanosleep(1000);
    out[0] = 0.0f;
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    k<<<1, 1>>>(out);
}
