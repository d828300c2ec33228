// regrapht-expect: parallelize, cuda_graphs, stream_overlap
#include <cuda_runtime.h>

__global__ void step(float* u, const float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) u[i] = 0.5f * (v[i - 1] + v[i + 1]);
}

// Capture one Jacobi sweep pair once, then replay it `iters` times with a single launch each.
void jacobi(float* u, float* v, int n, int iters) {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    step<<<(n + 255) / 256, 256, 0, stream>>>(u, v, n);
    step<<<(n + 255) / 256, 256, 0, stream>>>(v, u, n);
    cudaStreamEndCapture(stream, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    for (int it = 0; it < iters; ++it) cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
}
