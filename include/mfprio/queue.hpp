#pragma once
/// \file
/// Everything at run time: the dynamic (policy-file) engine with its registry and presets,
/// the queue orders, immutable snapshots, the pending-job set and the asynchronous
/// reprioritizer, and the site policy of site_factor/mfprio (a Slurm site_factor plugin).
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/dynamic.hpp>
#include <mfprio/queue/gpu_fair_use.hpp>
#include <mfprio/queue/order.hpp>
#include <mfprio/queue/pending.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/queue/reprioritizer.hpp>
#include <mfprio/queue/site.hpp>
#include <mfprio/queue/site_factors.hpp>
#include <mfprio/queue/snapshot.hpp>
