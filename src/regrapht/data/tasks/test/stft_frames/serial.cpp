void stft_frames(int n, int frame_len, int hop, int frames, const float* stereo, const float* window, float* out) {
    for (int f = 0; f < frames; ++f) {
        const long long start = static_cast<long long>(f) * hop;
        float* frame = out + static_cast<long long>(f) * frame_len;
        for (int k = 0; k < frame_len; ++k) {
            long long s = start + k;
            float mono = 0.0f;
            if (s < n) mono = 0.5f * (stereo[2 * s] + stereo[2 * s + 1]);
            frame[k] = mono * window[k];
        }
    }
}
