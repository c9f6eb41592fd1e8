#pragma once
/// \file
/// The core layer: factor concept, weights, terms, engine, result policies, the job record,
/// and the helper that splits a pass among threads.
#include <mfprio/core/assert.hpp>
#include <mfprio/core/component.hpp>
#include <mfprio/core/constant_text.hpp>
#include <mfprio/core/engine.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/parallel.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
