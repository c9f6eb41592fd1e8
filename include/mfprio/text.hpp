#pragma once
/// \file
/// The text layer (`mfprio::text`): lines, trimming, numbers, the file loader, '|' tables,
/// hostlists, Slurm's time strings.
#include <mfprio/text/hostlist.hpp>
#include <mfprio/text/slurm_time.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/text/text.hpp>
