// Split interleaved int16 frames into one float channel after another, scaled to [-1, 1).
void pcm16_deinterleave(int frames, int channels, const short* pcm, float* planar) {
    for (int n = 0; n < frames; ++n)
        for (int c = 0; c < channels; ++c)
            planar[static_cast<long long>(c) * frames + n] = pcm[static_cast<long long>(n) * channels + c] / 32768.0f;
}
