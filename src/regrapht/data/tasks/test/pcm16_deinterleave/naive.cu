// One thread per output sample (channel, frame): consecutive threads write consecutive samples of a
// channel and read every channels-th input sample.
__global__ void deinterleave_naive(int frames, int channels, const short* pcm, float* planar) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)frames * channels) return;
    const long long c = idx / frames, n = idx - c * frames;
    planar[idx] = pcm[n * channels + c] / 32768.0f;
}

void pcm16_deinterleave(int frames, int channels, const short* pcm, float* planar) {
    const long long total = (long long)frames * channels;
    if (total > 0) deinterleave_naive<<<(unsigned)((total + 255) / 256), 256>>>(frames, channels, pcm, planar);
}
