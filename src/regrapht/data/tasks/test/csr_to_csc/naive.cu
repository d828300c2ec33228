__global__ void csc_count(int nnz, const int* col_idx, int* col_ptr) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz) atomicAdd(&col_ptr[col_idx[k] + 1], 1);
}

__global__ void csc_scan_serial(int cols, int* col_ptr) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    int running = 0;
    for (int c = 0; c < cols; ++c) {
        running += col_ptr[c + 1];
        col_ptr[c + 1] = running;
    }
}

__global__ void csc_scatter(int rows, const int* row_ptr, const int* col_idx, const float* values, int* next,
                            int* row_idx, float* values_t) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
        int dst = atomicAdd(&next[col_idx[k]], 1);
        row_idx[dst] = r;
        values_t[dst] = values[k];
    }
}

// The atomics place entries in arbitrary order: sort every column's segment by row (insertion sort).
__global__ void csc_sort_columns(int cols, const int* col_ptr, int* row_idx, float* values_t) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    int begin = col_ptr[c], end = col_ptr[c + 1];
    for (int i = begin + 1; i < end; ++i) {
        int r = row_idx[i];
        float v = values_t[i];
        int j = i - 1;
        while (j >= begin && row_idx[j] > r) {
            row_idx[j + 1] = row_idx[j];
            values_t[j + 1] = values_t[j];
            --j;
        }
        row_idx[j + 1] = r;
        values_t[j + 1] = v;
    }
}

void csr_to_csc(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                int* col_ptr, int* row_idx, float* values_t) {
    cudaMemset(col_ptr, 0, sizeof(int) * ((size_t)cols + 1));
    if (nnz <= 0 || cols <= 0) return;
    csc_count<<<(nnz + 255) / 256, 256>>>(nnz, col_idx, col_ptr);
    csc_scan_serial<<<1, 1>>>(cols, col_ptr);
    int* next = nullptr;
    cudaMalloc(&next, sizeof(int) * (size_t)cols);
    cudaMemcpy(next, col_ptr, sizeof(int) * (size_t)cols, cudaMemcpyDeviceToDevice);
    if (rows > 0) csc_scatter<<<(rows + 255) / 256, 256>>>(rows, row_ptr, col_idx, values, next, row_idx, values_t);
    csc_sort_columns<<<(cols + 255) / 256, 256>>>(cols, col_ptr, row_idx, values_t);
    cudaFree(next);
}
