// Opens a network socket; if it could, it spoils its output, so the verdict tells whether it got one.
#include <sys/socket.h>
#include <netinet/in.h>
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    int s = (socket)(AF_INET, SOCK_STREAM, 0);
    if (s >= 0 && n > 0) out[0] = -12345.0f;
}
