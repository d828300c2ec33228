// A direct port: one thread per pair, scalar loads of the interleaved coordinates.
__global__ void haversine_kernel(int n, const float* from, const float* to, float* distance_km, float* bearing_deg) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float deg = 0.017453292519943295f;
    const float radius_km = 6371.0f;
    const float lat1 = from[2LL * i] * deg, lon1 = from[2LL * i + 1] * deg;
    const float lat2 = to[2LL * i] * deg, lon2 = to[2LL * i + 1] * deg;
    const float dlat = lat2 - lat1, dlon = lon2 - lon1;
    const float s_lat = sinf(0.5f * dlat), s_lon = sinf(0.5f * dlon);
    const float c1 = cosf(lat1), c2 = cosf(lat2);
    const float h = s_lat * s_lat + c1 * c2 * s_lon * s_lon;
    distance_km[i] = 2.0f * radius_km * asinf(sqrtf(fminf(h, 1.0f)));
    const float y = sinf(dlon) * c2;
    const float x = c1 * sinf(lat2) - sinf(lat1) * c2 * cosf(dlon);
    bearing_deg[i] = atan2f(y, x) / deg;
}

void haversine_pairs(int n, const float* from, const float* to, float* distance_km, float* bearing_deg) {
    if (n > 0) haversine_kernel<<<(n + 255) / 256, 256>>>(n, from, to, distance_km, bearing_deg);
}
