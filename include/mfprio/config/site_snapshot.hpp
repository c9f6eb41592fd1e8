#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/replay/site_snapshot.hpp`.
#include <mfprio/replay/site_snapshot.hpp>
