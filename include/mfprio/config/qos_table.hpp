#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/qos_table.hpp`.
#include <mfprio/read/qos_table.hpp>
