#pragma once
/// \file
/// A cluster's inputs as Slurm prints them, any jobs input (`squeue --json` included), bundles
/// and the cluster built from them. Opt-in: these headers read JSON with simdjson (Debian:
/// libsimdjson-dev; link with `pkg-config --libs simdjson`), so mfprio/mfprio.hpp does not
/// include them and the rest of the library needs nothing.
#include <mfprio/mfprio.hpp>
#include <mfprio/inputs/bundle.hpp>
#include <mfprio/inputs/cluster.hpp>
#include <mfprio/inputs/flux.hpp>
#include <mfprio/inputs/jobs_input.hpp>
#include <mfprio/inputs/squeue_json.hpp>
