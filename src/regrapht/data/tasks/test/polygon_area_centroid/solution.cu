// steps: work_decomposition, thread_coarsening, memory_coalescing, vectorized_access, warp_shuffle_reduction
// A segmented reduction by vertices: the polygon sizes follow a power law (the largest has hundreds
// of thousands of vertices, most a handful), so work is cut by vertices, never by polygons. Warp
// w owns the vertex range [w RANGE, (w + 1) RANGE) and walks it in tiles of 256 vertices, 8
// consecutive vertices a lane (two 16-byte loads a coordinate). For each tile the warp reads the
// polygon starts that fall in it (poly_ptr, 32 at a time, coalesced) and marks them in a 257-bit
// head mask in shared memory. Each lane then sums its vertices' edge terms in double, in order:
// a polygon that starts and ends inside the lane is finished there; the sums open at the lane's
// end are carried to the next lanes by a segmented scan over shuffles (a head resets the sum), and
// the lane holding a carried polygon's last vertex finishes it. A polygon that crosses a range
// boundary adds its partial sums to a double accumulator with atomics, and a second kernel
// finishes those few and clears their accumulator for the next call.
// The previous version walked the polygons of a range one at a time (two dependent loads of
// poly_ptr, then 15 double shuffles and two double divisions for each polygon, ~30 polygons a
// warp): it was bound by that serial chain, at 21% of the DRAM floor. Here a tile costs one scan
// of 3 doubles, whatever the number of polygons in it, and the next tile's vertices are loaded
// while the current one is summed.
#include <climits>
#include <cstdint>

#define PAC_WARPS 4
#define PAC_TILE 256     // vertices a warp step: 8 a lane
#define PAC_RANGE 2048   // vertices a warp owns: ~16K warps at the bench size

__device__ __forceinline__ void finish(double a2, double sx, double sy, float* area, float* cx, float* cy, int p) {
    const double inv = __drcp_rn(3.0 * a2);  // within an ulp of double of the quotient, far below float's
    area[p] = (float)(0.5 * a2);
    cx[p] = (float)(sx * inv);
    cy[p] = (float)(sy * inv);
}

// A lane's 8 consecutive vertices (two 16-byte loads a coordinate when the arrays allow it).
__device__ __forceinline__ void load8(const float* __restrict__ vx, const float* __restrict__ vy, int i0, int nverts,
                                      bool aligned, float (&x)[8], float (&y)[8]) {
    if (aligned && i0 + 8 <= nverts) {
        const float4* x4 = reinterpret_cast<const float4*>(vx + i0);
        const float4* y4 = reinterpret_cast<const float4*>(vy + i0);
        const float4 xa = x4[0], xb = x4[1], ya = y4[0], yb = y4[1];
        x[0] = xa.x, x[1] = xa.y, x[2] = xa.z, x[3] = xa.w, x[4] = xb.x, x[5] = xb.y, x[6] = xb.z, x[7] = xb.w;
        y[0] = ya.x, y[1] = ya.y, y[2] = ya.z, y[3] = ya.w, y[4] = yb.x, y[5] = yb.y, y[6] = yb.z, y[7] = yb.w;
    } else {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            x[k] = i0 + k < nverts ? vx[i0 + k] : 0.0f;
            y[k] = i0 + k < nverts ? vy[i0 + k] : 0.0f;
        }
    }
}

struct Sums {
    double a2, sx, sy;
};

__global__ void __launch_bounds__(PAC_WARPS * 32)
    polygon_segments(int npoly, int nverts, const int* __restrict__ poly_ptr, const float* __restrict__ vx,
                     const float* __restrict__ vy, bool aligned, double* __restrict__ acc, float* area, float* cx,
                     float* cy) {
    __shared__ unsigned heads_all[PAC_WARPS][PAC_TILE / 32 + 1];
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    unsigned* heads = heads_all[threadIdx.x >> 5];
    const long long rs_ll = ((long long)blockIdx.x * PAC_WARPS + (threadIdx.x >> 5)) * PAC_RANGE;
    if (rs_ll >= nverts) return;  // whole warps leave together
    const int rs = (int)rs_ll;
    const int re = (int)(rs_ll + PAC_RANGE < nverts ? rs_ll + PAC_RANGE : nverts);
    // The polygon holding vertex rs, the last p with poly_ptr[p] <= rs: a 32-way search, a probe a lane.
    int lo = 0, len = npoly;
    while (len > 1) {
        const int step = (len + 31) / 32;
        const int idx = lo + lane * step;
        const bool le = idx < lo + len && __ldg(poly_ptr + idx) <= rs;
        const int last = 31 - __clz(__ballot_sync(full, le));  // lane 0 probes lo, which holds
        const int end = lo + len;
        lo += last * step;
        len = min(step, end - lo);
    }
    int q = __ldg(poly_ptr + lo) == rs ? lo : lo + 1;  // the first polygon starting at or after the tile
    int pb = lo;  // the polygon holding the tile's first vertex
    // The sums carried into the tile: f = the carried polygon started inside this range.
    bool carry_f = false;
    Sums carry = {0.0, 0.0, 0.0};
    int last_owner = 0;
    bool last_closed = true;
    float xn[8], yn[8];
    load8(vx, vy, rs + 8 * lane, nverts, aligned, xn, yn);
    for (int base = rs; base < re; base += PAC_TILE) {
        const int i0 = base + 8 * lane;
        float x[8], y[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) x[k] = xn[k], y[k] = yn[k];
        if (base + PAC_TILE < re) load8(vx, vy, i0 + PAC_TILE, nverts, aligned, xn, yn);  // the next tile, in flight meanwhile
        if (lane <= PAC_TILE / 32) heads[lane] = 0u;
        __syncwarp();
        for (;;) {  // mark the starts in [base, base + 256]; poly_ptr[npoly] = nverts ends the last one
            const int idx = q + lane;
            const int st = idx <= npoly ? __ldg(poly_ptr + idx) : INT_MAX;
            if (st <= base + PAC_TILE) atomicOr(heads + ((st - base) >> 5), 1u << ((st - base) & 31));
            const unsigned in = __ballot_sync(full, st < base + PAC_TILE);
            q += __popc(in);
            if (in != full) break;
        }
        __syncwarp();
        unsigned h = (heads[lane >> 2] >> ((lane & 3) * 8)) & 0xffu;
        const unsigned h_next = lane < 31 ? (heads[(lane + 1) >> 2] >> (((lane + 1) & 3) * 8)) & 1u : heads[8] & 1u;
        float nx = __shfl_down_sync(full, x[0], 1), ny = __shfl_down_sync(full, y[0], 1);
        if (lane == 31 && i0 + 8 < nverts) nx = vx[i0 + 8], ny = vy[i0 + 8];
        // The owner of vertex i0: pb plus the heads in (base, i0].
        const unsigned hc = lane == 0 ? h & ~1u : h;
        int before = __popc(hc);
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int o = __shfl_up_sync(full, before, d);
            if (lane >= d) before += o;
        }
        before -= __popc(hc);
        const int own0 = pb + before + (int)(hc & 1u);
        int own = own0;
        Sums cur = {0.0, 0.0, 0.0}, lead = {0.0, 0.0, 0.0};
        bool open_head = false, lead_closed = false;
        float fx = 0.0f, fy = 0.0f;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if (i0 + k < nverts) {
                if ((h >> k) & 1u) {  // a polygon starts at this vertex
                    if (k > 0) ++own;
                    open_head = true;
                    fx = x[k], fy = y[k];
                    cur = {0.0, 0.0, 0.0};
                }
                const bool tail = k < 7 ? ((h >> (k + 1)) & 1u) != 0 : h_next != 0;  // the next vertex starts another
                float xj, yj;
                if (!tail) {
                    xj = k < 7 ? x[k + 1] : nx;
                    yj = k < 7 ? y[k + 1] : ny;
                } else if (open_head) {
                    xj = fx, yj = fy;
                } else {  // the polygon started in an earlier lane: its first vertex
                    const int s = __ldg(poly_ptr + own);
                    xj = vx[s], yj = vy[s];
                }
                const double dxi = x[k], dyi = y[k], dxj = xj, dyj = yj;
                const double cr = dxi * dyj - dxj * dyi;
                cur.a2 += cr;
                cur.sx += (dxi + dxj) * cr;
                cur.sy += (dyi + dyj) * cr;
                if (tail) {
                    if (open_head) finish(cur.a2, cur.sx, cur.sy, area, cx, cy, own);
                    else lead = cur, lead_closed = true;
                    cur = {0.0, 0.0, 0.0};
                    open_head = false;
                }
            }
        }
        // Segmented inclusive scan of the open sums: a lane with a head or a closed lead resets.
        bool f = h != 0u || lead_closed;
        Sums v = cur;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const bool fo = __shfl_up_sync(full, f, d);
            const double a2o = __shfl_up_sync(full, v.a2, d), sxo = __shfl_up_sync(full, v.sx, d);
            const double syo = __shfl_up_sync(full, v.sy, d);
            if (lane >= d) {
                if (!f) v.a2 += a2o, v.sx += sxo, v.sy += syo;
                f = f || fo;
            }
        }
        // The tile's carry-in joins every lane without a reset before it.
        if (!f) v.a2 += carry.a2, v.sx += carry.sx, v.sy += carry.sy;
        const bool fin = f || carry_f;
        // Exclusive: what flows into this lane.
        bool in_f = __shfl_up_sync(full, fin, 1);
        Sums in = {__shfl_up_sync(full, v.a2, 1), __shfl_up_sync(full, v.sx, 1), __shfl_up_sync(full, v.sy, 1)};
        if (lane == 0) in_f = carry_f, in = carry;
        if (lead_closed) {  // this lane holds the last vertex of the polygon carried into it
            const Sums t = {in.a2 + lead.a2, in.sx + lead.sx, in.sy + lead.sy};
            if (in_f) {
                finish(t.a2, t.sx, t.sy, area, cx, cy, own0);
            } else {  // it started before this range
                atomicAdd(acc + 3LL * own0, t.a2);
                atomicAdd(acc + 3LL * own0 + 1, t.sx);
                atomicAdd(acc + 3LL * own0 + 2, t.sy);
            }
        }
        carry_f = __shfl_sync(full, fin, 31);
        carry = {__shfl_sync(full, v.a2, 31), __shfl_sync(full, v.sx, 31), __shfl_sync(full, v.sy, 31)};
        last_owner = __shfl_sync(full, own, 31);
        last_closed = (heads[8] & 1u) != 0;  // read only for a full tile (re < nverts)
        pb = last_closed ? q : q - 1;  // q: the first polygon starting at or after the next tile
        __syncwarp();  // the head mask is cleared for the next tile only after every lane read it
    }
    if (re < nverts && !last_closed && lane == 0) {  // the last polygon goes on past this range
        atomicAdd(acc + 3LL * last_owner, carry.a2);
        atomicAdd(acc + 3LL * last_owner + 1, carry.sx);
        atomicAdd(acc + 3LL * last_owner + 2, carry.sy);
    }
}

// Polygons that cross a range boundary: their sums are complete once polygon_segments has run.
__global__ void finish_crossing(int npoly, const int* __restrict__ poly_ptr, double* __restrict__ acc, float* area,
                                float* cx, float* cy) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoly) return;
    const int s = poly_ptr[p], e = poly_ptr[p + 1];
    if (s / PAC_RANGE == (e - 1) / PAC_RANGE) return;
    double* a = acc + 3LL * p;
    finish(a[0], a[1], a[2], area, cx, cy, p);
    a[0] = a[1] = a[2] = 0.0;
}

void polygon_area_centroid(int npoly, int nverts, const int* poly_ptr, const float* vx, const float* vy, float* area,
                           float* cx, float* cy) {
    if (npoly <= 0 || nverts <= 0) return;
    static double* acc = nullptr;  // all zero between calls: finish_crossing clears what it used
    static int capacity = 0;
    if (npoly > capacity) {
        if (acc) cudaFree(acc);
        cudaMalloc(&acc, 3 * (size_t)npoly * sizeof(double));
        cudaMemset(acc, 0, 3 * (size_t)npoly * sizeof(double));
        capacity = npoly;
    }
    const bool aligned =
        reinterpret_cast<std::uintptr_t>(vx) % 16 == 0 && reinterpret_cast<std::uintptr_t>(vy) % 16 == 0;
    const long long ranges = ((long long)nverts + PAC_RANGE - 1) / PAC_RANGE;
    polygon_segments<<<(unsigned)((ranges + PAC_WARPS - 1) / PAC_WARPS), PAC_WARPS * 32>>>(
        npoly, nverts, poly_ptr, vx, vy, aligned, acc, area, cx, cy);
    finish_crossing<<<(npoly + 255) / 256, 256>>>(npoly, poly_ptr, acc, area, cx, cy);
}
