// steps: parallelize, thread_coarsening
// A 2D grid: x covers the frame positions k, y a slab of frames. Each thread keeps window[k] in a
// register and walks down its slab, so the per-element division and window loads disappear and the
// stereo pairs are read as one float2 per sample.
constexpr int FRAMES_PER_THREAD = 16;

__global__ void frames_coarse(int n, int frame_len, int hop, int frames, const float* __restrict__ stereo,
                              const float* __restrict__ window, float* __restrict__ out) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= frame_len) return;
    const float w = window[k];
    const float2* pairs = reinterpret_cast<const float2*>(stereo);
    int f0 = blockIdx.y * FRAMES_PER_THREAD;
    int f1 = min(f0 + FRAMES_PER_THREAD, frames);
    for (int f = f0; f < f1; ++f) {
        long long s = static_cast<long long>(f) * hop + k;
        float mono = 0.0f;
        if (s < n) {
            float2 lr = pairs[s];
            mono = 0.5f * (lr.x + lr.y);
        }
        out[static_cast<long long>(f) * frame_len + k] = mono * w;
    }
}

void stft_frames(int n, int frame_len, int hop, int frames, const float* stereo, const float* window, float* out) {
    if (frames <= 0 || frame_len <= 0) return;
    dim3 block(256);
    dim3 grid((frame_len + 255) / 256, (frames + FRAMES_PER_THREAD - 1) / FRAMES_PER_THREAD);
    frames_coarse<<<grid, block>>>(n, frame_len, hop, frames, stereo, window, out);
}
