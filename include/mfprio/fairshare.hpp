#pragma once
/// \file
/// The fair-share layer: association tree, every algorithm, usage decay, billing, resets.
#include <mfprio/fairshare/billing.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/fairshare/decay.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/flux_tree.hpp>
#include <mfprio/fairshare/flux_usage.hpp>
#include <mfprio/fairshare/linear.hpp>
#include <mfprio/fairshare/reset.hpp>
#include <mfprio/fairshare/shares.hpp>
#include <mfprio/fairshare/tree.hpp>
#include <mfprio/fairshare/usage.hpp>
