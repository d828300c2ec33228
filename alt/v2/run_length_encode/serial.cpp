// Run-length encoding, as in compressing sensor streams, bitmap indexes or sorted key columns.
void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    int runs = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && values[j] == values[i]) ++j;
        run_values[runs] = values[i];
        run_lengths[runs] = j - i;
        ++runs;
        i = j;
    }
    *num_runs = runs;
}
