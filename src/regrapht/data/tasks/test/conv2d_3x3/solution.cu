// steps: parallelize, shared_memory_tiling, register_tiling, data_layout_transform, vectorized_access, loop_unrolling, memory_coalescing
// Direct convolution blocked for reuse. A 256-thread block owns a 16 x 16 pixel tile of one image
// and 16 output channels; every thread accumulates its pixel for all 16 channels in registers.
// Input channels advance in slices of 8: the block stages the 8 x 18 x 18 haloed input tile
// (zero padded at the borders, coalesced row loads) and the slice's weights, transposed to
// [ci][tap][co] so that one float4 shared load broadcasts four channels' weights to all threads.
// Each staged input value is then reused for 16 channels, each weight for 256 pixels.

#define TILE 16
#define COB 16
#define CIB 8
#define HALO (TILE + 2)

__global__ void __launch_bounds__(TILE * TILE) conv2d_3x3_tiled(int N, int Cin, int H, int W, int Cout,
                                                                const float* __restrict__ x,
                                                                const float* __restrict__ weight,
                                                                const float* __restrict__ bias, float* __restrict__ y) {
    __shared__ float xs[CIB][HALO][HALO];
    __shared__ __align__(16) float ws[CIB][9][COB];
    const int tiles_w = (W + TILE - 1) / TILE;
    const int th = blockIdx.x / tiles_w, tw = blockIdx.x % tiles_w;
    const int h0 = th * TILE, w0 = tw * TILE;
    const int co0 = blockIdx.y * COB;
    const int n = blockIdx.z;
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const long long plane = (long long)H * W;

    float acc[COB];
    #pragma unroll
    for (int c = 0; c < COB; ++c) acc[c] = 0.0f;

    for (int ci0 = 0; ci0 < Cin; ci0 += CIB) {
        __syncthreads();
        for (int e = threadIdx.x; e < CIB * HALO * HALO; e += TILE * TILE) {
            int c = e / (HALO * HALO), r = (e / HALO) % HALO, q = e % HALO;
            int ci = ci0 + c, hh = h0 + r - 1, ww = w0 + q - 1;
            float v = 0.0f;
            if (ci < Cin && hh >= 0 && hh < H && ww >= 0 && ww < W) v = x[((long long)n * Cin + ci) * plane + (long long)hh * W + ww];
            xs[c][r][q] = v;
        }
        for (int e = threadIdx.x; e < COB * CIB * 9; e += TILE * TILE) {
            // consecutive threads read consecutive weights of one output channel
            int co = e / (CIB * 9), rest = e % (CIB * 9), c = rest / 9, k = rest % 9;
            int gco = co0 + co, ci = ci0 + c;
            ws[c][k][co] = (gco < Cout && ci < Cin) ? weight[((long long)gco * Cin + ci) * 9 + k] : 0.0f;
        }
        __syncthreads();
        #pragma unroll 2
        for (int c = 0; c < CIB; ++c) {
            #pragma unroll
            for (int kh = 0; kh < 3; ++kh) {
                #pragma unroll
                for (int kw = 0; kw < 3; ++kw) {
                    float v = xs[c][ty + kh][tx + kw];
                    const float4* w4 = reinterpret_cast<const float4*>(&ws[c][kh * 3 + kw][0]);
                    #pragma unroll
                    for (int q = 0; q < COB / 4; ++q) {
                        float4 wv = w4[q];
                        acc[4 * q] = fmaf(v, wv.x, acc[4 * q]);
                        acc[4 * q + 1] = fmaf(v, wv.y, acc[4 * q + 1]);
                        acc[4 * q + 2] = fmaf(v, wv.z, acc[4 * q + 2]);
                        acc[4 * q + 3] = fmaf(v, wv.w, acc[4 * q + 3]);
                    }
                }
            }
        }
    }
    const int h = h0 + ty, w = w0 + tx;
    if (h >= H || w >= W) return;
    #pragma unroll
    for (int c = 0; c < COB; ++c) {
        int co = co0 + c;
        if (co < Cout) y[((long long)n * Cout + co) * plane + (long long)h * W + w] = acc[c] + bias[co];
    }
}

void conv2d_3x3(int N, int Cin, int H, int W, int Cout, const float* x, const float* weight, const float* bias,
                float* y) {
    if (N <= 0 || Cout <= 0 || H <= 0 || W <= 0) return;
    dim3 grid(((H + TILE - 1) / TILE) * ((W + TILE - 1) / TILE), (Cout + COB - 1) / COB, N);
    conv2d_3x3_tiled<<<grid, TILE * TILE>>>(N, Cin, H, W, Cout, x, weight, bias, y);
}
