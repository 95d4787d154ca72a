// TOPOS_BACKENDS narrows the backends a process offers its plans:
// detail::servers_named keeps the servers a list names, in the compiler's
// order, and reports a name the build does not hold.
#include "plan/backend_seam.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace topos {
namespace {

using detail::Server;

Server server_called(std::string_view name) {
    return Server{.name = name,
                  .fidelity = Fidelity::Reordered,
                  .formulas = {},
                  .serves = nullptr,
                  .kernel_f32 = nullptr,
                  .kernel_f64 = nullptr};
}

struct ThreeServers {
    Server gpu = server_called("cuda");
    Server blas = server_called("openblas");
    Server lanes = server_called("fast-lanes");
    std::vector<const Server*> all{&gpu, &blas, &lanes};
};

std::vector<std::string_view> names(const std::vector<const Server*>& servers) {
    std::vector<std::string_view> result;
    for (const Server* server : servers) {
        result.push_back(server->name);
    }
    return result;
}

TEST(BackendSelection, NoneKeepsNoBackend) {
    const ThreeServers servers;
    EXPECT_TRUE(detail::servers_named(servers.all, "none").empty());
}

TEST(BackendSelection, AnEmptyListKeepsNoBackend) {
    const ThreeServers servers;
    EXPECT_TRUE(detail::servers_named(servers.all, "").empty());
}

TEST(BackendSelection, NamedBackendsKeepTheCompilersOrder) {
    const ThreeServers servers;
    EXPECT_THAT(names(detail::servers_named(servers.all, "fast-lanes,cuda")),
                testing::ElementsAre("cuda", "fast-lanes"));
    EXPECT_THAT(names(detail::servers_named(servers.all, "openblas")),
                testing::ElementsAre("openblas"));
}

TEST(BackendSelection, ANameTheBuildLacksIsReportedAndIgnored) {
    const ThreeServers servers;
    testing::internal::CaptureStderr();
    const auto kept = detail::servers_named(servers.all, "openblas,onednn");
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_THAT(names(kept), testing::ElementsAre("openblas"));
    EXPECT_THAT(said, testing::HasSubstr("TOPOS_BACKENDS names onednn"));
    EXPECT_THAT(said, testing::HasSubstr("it holds: cuda, openblas, fast-lanes"));
}

}  // namespace
}  // namespace topos
