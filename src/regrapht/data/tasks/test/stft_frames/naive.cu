__global__ void frames_kernel(int n, int frame_len, int hop, int frames, const float* stereo, const float* window,
                              float* out) {
    long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long total = static_cast<long long>(frames) * frame_len;
    if (idx >= total) return;
    long long f = idx / frame_len;
    int k = static_cast<int>(idx - f * frame_len);
    long long s = f * hop + k;
    float mono = 0.0f;
    if (s < n) mono = 0.5f * (stereo[2 * s] + stereo[2 * s + 1]);
    out[idx] = mono * window[k];
}

void stft_frames(int n, int frame_len, int hop, int frames, const float* stereo, const float* window, float* out) {
    long long total = static_cast<long long>(frames) * frame_len;
    if (total <= 0) return;
    int blocks = static_cast<int>((total + 255) / 256);
    frames_kernel<<<blocks, 256>>>(n, frame_len, hop, frames, stereo, window, out);
}
