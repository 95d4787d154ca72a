// GoogleTest under mpirun: every rank runs every test in the same order (the
// collectives need it). Rank 0 prints as usual; another rank prints only its
// failures, each line led by its rank, and every rank's result sets its exit
// status, so mpirun fails when any rank does.
#include <topos/distributed.hpp>

#include <gtest/gtest.h>

#include <cstdio>

namespace {

class FailuresOfOneRank : public testing::EmptyTestEventListener {
public:
    explicit FailuresOfOneRank(int rank) : rank_(rank) {}

    void OnTestPartResult(const testing::TestPartResult& result) override {
        if (result.failed()) {
            std::fprintf(stderr,
                         "rank %d: %s:%d: %s\n",
                         rank_,
                         result.file_name() == nullptr ? "?" : result.file_name(),
                         result.line_number(),
                         result.summary());
        }
    }

private:
    int rank_;
};

}  // namespace

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const topos::distributed::Communicator world;
    if (world.rank() != 0) {
        testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new FailuresOfOneRank(world.rank()));
    }
    return RUN_ALL_TESTS();
}
