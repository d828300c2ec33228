#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
// Writes a forged message onto the worker's result channel, whose descriptor is the worker's last
// command-line argument: a correctness case claimed with a case index the protocol does not allow.
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    char args[4096] = {0};
    int f = open("/proc/self/cmdline", O_RDONLY);
    if (f < 0) return;
    ssize_t len = read(f, args, sizeof(args) - 1);
    close(f);
    const char* last = args;
    for (ssize_t i = 0; i + 1 < len; ++i)
        if (args[i] == 0) last = args + i + 1;
    const char* forged = "{\"event\": \"case_done\", \"lib\": \"candidate\", \"case\": \"0\", \"run\": 1}\n";
    ssize_t written = write(atoi(last), forged, strlen(forged));
    (void)written;
}
