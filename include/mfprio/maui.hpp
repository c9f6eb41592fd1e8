#pragma once
/// \file
/// Everything Maui: the model, job record, context, subcomponents, the engine with its
/// result policy and start order, and the fair-share windows.
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/fairshare.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>
