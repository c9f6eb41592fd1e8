#pragma once
// Shared by tests/flux_factors.cpp and tests/flux_priority.cpp: a flux::job with the fields
// Flux's factors read, and the tables a flux::context views.

#include <cstdint>
#include <vector>

#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>

namespace flux_test {

/// A flux::job with the fields the factors and result policies read.
constexpr mfprio::flux::job make_job(std::uint32_t id, std::uint32_t association, std::uint32_t queue,
                                     std::uint32_t bank, std::uint8_t urgency, std::uint64_t seq = 0) {
    mfprio::flux::job j;
    j.id = id;
    j.association = association;
    j.queue = queue;
    j.bank = bank;
    j.urgency = urgency;
    j.submit_seq = seq;
    return j;
}

/// Tables owned by the test, viewed by a context.
struct tables {
    std::vector<double> fairshare;
    std::vector<std::int64_t> queues;
    std::vector<double> banks;
    mfprio::flux::context c{};
    const mfprio::flux::context& ctx() {
        c.fairshare = fairshare;
        c.queue_priority = queues;
        c.bank_priority = banks;
        return c;
    }
};

} // namespace flux_test
