// Joint intensity histogram of two aligned images, the core of mutual-information registration.
void joint_histogram_u8(int n, const unsigned char* img_a, const unsigned char* img_b, unsigned int* joint,
                        unsigned int* hist_a, unsigned int* hist_b) {
    for (int k = 0; k < 65536; ++k) joint[k] = 0;
    for (int k = 0; k < 256; ++k) hist_a[k] = hist_b[k] = 0;
    for (int i = 0; i < n; ++i) {
        const unsigned int a = img_a[i], b = img_b[i];
        joint[a * 256 + b] += 1;
        hist_a[a] += 1;
        hist_b[b] += 1;
    }
}
