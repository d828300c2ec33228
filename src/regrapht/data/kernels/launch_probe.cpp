// The launch probe of `regrapht tasks check`: preloaded (RTLD_GLOBAL) before a naive.cu library
// built with `-cudart shared`, it stands in for the runtime's launch entry points, notes each
// launch's grid and block, and forwards the call to the real runtime (found with RTLD_NEXT).
// Built with `nvcc -cudart none`, so it carries no runtime of its own.
#include <cuda_runtime.h>
#include <dlfcn.h>

namespace {
unsigned long long g_launches = 0, g_max_threads = 0, g_max_blocks = 0;

void note(dim3 grid, dim3 block) {
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    const unsigned long long threads = blocks * block.x * block.y * block.z;
    ++g_launches;
    if (threads > g_max_threads) {
        g_max_threads = threads;
        g_max_blocks = blocks;
    }
}

template <typename F>
F real(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" {
typedef cudaError_t (*launch_fn)(const void*, dim3, dim3, void**, size_t, cudaStream_t);

// nvcc's <<<>>> stubs call these two (crt/device_functions.h); the kernel handle is a pointer.
cudaError_t __cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                               cudaStream_t stream) {
    static launch_fn f = real<launch_fn>("__cudaLaunchKernel");
    note(grid, block);
    return f ? f(kernel, grid, block, args, shmem, stream) : cudaErrorUnknown;
}

cudaError_t __cudaLaunchKernel_ptsz(const void* kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                                    cudaStream_t stream) {
    static launch_fn f = real<launch_fn>("__cudaLaunchKernel_ptsz");
    note(grid, block);
    return f ? f(kernel, grid, block, args, shmem, stream) : cudaErrorUnknown;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t stream) {
    static launch_fn f = real<launch_fn>("cudaLaunchKernel");
    note(grid, block);
    return f ? f(func, grid, block, args, shmem, stream) : cudaErrorUnknown;
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                        cudaStream_t stream) {
    static launch_fn f = real<launch_fn>("cudaLaunchCooperativeKernel");
    note(grid, block);
    return f ? f(func, grid, block, args, shmem, stream) : cudaErrorUnknown;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
    typedef cudaError_t (*ex_fn)(const cudaLaunchConfig_t*, const void*, void**);
    static ex_fn f = real<ex_fn>("cudaLaunchKernelExC");
    if (config) note(config->gridDim, config->blockDim);
    return f ? f(config, func, args) : cudaErrorUnknown;
}

unsigned long long regrapht_probe_launches() { return g_launches; }
unsigned long long regrapht_probe_max_threads() { return g_max_threads; }
unsigned long long regrapht_probe_max_blocks() { return g_max_blocks; }
}
