// The `--threads=N` argument of the LibTorch peers: LibTorch's intra-op pool
// size, taken out of the arguments before Google Benchmark reads them.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

// Removes `--threads=N` from the arguments and returns N (1 when absent).
inline int take_thread_count(int& argc, char** argv) {
    int threads = 1;
    std::vector<char*> kept;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "--threads=", 10) == 0) {
            threads = std::stoi(argv[i] + 10);
        } else {
            kept.push_back(argv[i]);
        }
    }
    for (std::size_t i = 0; i < kept.size(); ++i) {
        argv[i] = kept[i];
    }
    argc = static_cast<int>(kept.size());
    return threads;
}
