// regrapht-expect: parallelize, programmatic_dependent_launch
// One launch per time step with programmatic dependent launch. Each step kernel first allows the
// next step's grid to launch (cudaTriggerProgrammaticLaunchCompletion), then computes its indices
// and waits in cudaGridDependencySynchronize() until the previous step's grid has completed and its
// writes are visible; only then does it read the fields or write anything. The launch of step s+1
// and the scheduling of its first blocks overlap the tail of step s instead of following it. The
// first step is launched plainly (it depends on whatever ran before the call).
__global__ void gray_scott_step(int H, int W, const float* a, const float* b, float* a2, float* b2) {
    cudaTriggerProgrammaticLaunchCompletion();
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int up = (i + H - 1) % H, down = (i + 1) % H;
    int left = (j + W - 1) % W, right = (j + 1) % W;
    long long c = (long long)i * W + j;
    // a, b are the previous step's output, and a2, b2 were read by the step before it
    cudaGridDependencySynchronize();
    if (i >= H || j >= W) return;
    float uc = a[c], vc = b[c];
    float lu = a[(long long)up * W + j] + a[(long long)down * W + j] + a[(long long)i * W + left] +
               a[(long long)i * W + right] - 4.0f * uc;
    float lv = b[(long long)up * W + j] + b[(long long)down * W + j] + b[(long long)i * W + left] +
               b[(long long)i * W + right] - 4.0f * vc;
    float uvv = uc * vc * vc;
    a2[c] = uc + 0.16f * lu - uvv + 0.035f * (1.0f - uc);
    b2[c] = vc + 0.08f * lv + uvv - (0.035f + 0.065f) * vc;
}

static void launch_step(bool programmatic, dim3 grid, dim3 block, int H, int W, const float* a, const float* b,
                        float* a2, float* b2) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = 0;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = programmatic ? 1 : 0;
    cudaLaunchKernelEx(&cfg, gray_scott_step, H, W, a, b, a2, b2);
}

void gray_scott_steps(int H, int W, int steps, const float* u0, const float* v0, float* u, float* v, float* work) {
    if (H <= 0 || W <= 0) return;
    long long cells = (long long)H * W;
    float* wu = work;
    float* wv = work + cells;
    if (steps <= 0) {
        cudaMemcpy(u, u0, cells * sizeof(float), cudaMemcpyDeviceToDevice);
        cudaMemcpy(v, v0, cells * sizeof(float), cudaMemcpyDeviceToDevice);
        return;
    }
    dim3 block(32, 8);
    dim3 grid((W + 31) / 32, (H + 7) / 8);
    // the step that ends in (u, v) is the last: count back to pick where the first one writes
    const float* a = u0;
    const float* b = v0;
    for (int s = 0; s < steps; ++s) {
        bool to_out = ((steps - 1 - s) % 2) == 0;
        float* a2 = to_out ? u : wu;
        float* b2 = to_out ? v : wv;
        launch_step(s > 0, grid, block, H, W, a, b, a2, b2);
        a = a2;
        b = b2;
    }
}
