#pragma once
/// \file
/// Everything Flux: the job record and context, flux-accounting's and flux-core's factors, the
/// result policies (rounding, HOLD, EXPEDITE, priority-hold, the upper clamp), the preset
/// engines (flux-accounting, FCFS, flux-core's default) and Flux's queue order. Reference
/// flux_maui.md part A; seed 003.
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/factors.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/order.hpp>
#include <mfprio/flux/presets.hpp>
#include <mfprio/flux/result.hpp>
