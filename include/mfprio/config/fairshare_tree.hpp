#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/model/fairshare_tree.hpp`.
#include <mfprio/model/fairshare_tree.hpp>
