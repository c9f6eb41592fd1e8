#pragma once
/// \file
/// MFPRIO_ASSERT: checks a contract at run time. Define MFPRIO_ASSERT yourself before the
/// first mfprio include to route failures into your scheduler's own handler; it is off
/// under NDEBUG. It is never used for bad input text (readers return `expected`).

#ifndef MFPRIO_ASSERT
#  ifdef NDEBUG
#    define MFPRIO_ASSERT(cond) ((void)0)
#  else
#    include <cstdio>
#    include <cstdlib>
#    define MFPRIO_ASSERT(cond)                                                           \
        ((cond) ? (void)0                                                                 \
                : (std::fprintf(stderr, "%s:%d: mfprio contract violated: %s\n", __FILE__, \
                                __LINE__, #cond),                                         \
                   std::abort()))
#  endif
#endif
