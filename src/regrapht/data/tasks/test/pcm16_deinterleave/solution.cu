// steps: memory_coalescing, vectorized_access
// One thread per frame: a warp's reads cover one contiguous run of 32 frames (the port reads every
// channels-th sample, so each warp touches channels times the sectors it uses), and for each channel
// its 32 stores are one contiguous run. With 8 channels a frame is one 16-byte load; with 4, 8 bytes.
__global__ void __launch_bounds__(256) deinterleave8(int frames, const uint4* __restrict__ pcm, float* __restrict__ planar) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= frames) return;
    const uint4 v = __ldg(pcm + n);
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        planar[(long long)(2 * k) * frames + n] = (short)(w[k] & 0xffffu) * (1.0f / 32768.0f);
        planar[(long long)(2 * k + 1) * frames + n] = (short)(w[k] >> 16) * (1.0f / 32768.0f);
    }
}

__global__ void __launch_bounds__(256) deinterleave4(int frames, const uint2* __restrict__ pcm, float* __restrict__ planar) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= frames) return;
    const uint2 v = __ldg(pcm + n);
    planar[n] = (short)(v.x & 0xffffu) * (1.0f / 32768.0f);
    planar[(long long)frames + n] = (short)(v.x >> 16) * (1.0f / 32768.0f);
    planar[2LL * frames + n] = (short)(v.y & 0xffffu) * (1.0f / 32768.0f);
    planar[3LL * frames + n] = (short)(v.y >> 16) * (1.0f / 32768.0f);
}

__global__ void __launch_bounds__(256) deinterleave_any(int frames, int channels, const short* __restrict__ pcm,
                                                        float* __restrict__ planar) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= frames) return;
    const short* in = pcm + (long long)n * channels;
    for (int c = 0; c < channels; ++c) planar[(long long)c * frames + n] = __ldg(in + c) * (1.0f / 32768.0f);
}

void pcm16_deinterleave(int frames, int channels, const short* pcm, float* planar) {
    if (frames <= 0 || channels <= 0) return;
    const unsigned blocks = (unsigned)((frames + 255) / 256);
    if (channels == 8)
        deinterleave8<<<blocks, 256>>>(frames, reinterpret_cast<const uint4*>(pcm), planar);
    else if (channels == 4)
        deinterleave4<<<blocks, 256>>>(frames, reinterpret_cast<const uint2*>(pcm), planar);
    else
        deinterleave_any<<<blocks, 256>>>(frames, channels, pcm, planar);
}
