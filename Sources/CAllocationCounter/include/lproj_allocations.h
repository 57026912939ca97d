// Counts heap allocations in the process that links this target (only
// lproj-bench): malloc, calloc, realloc and the aligned forms are wrapped
// around glibc's own implementations.
#ifndef LPROJ_ALLOCATIONS_H
#define LPROJ_ALLOCATIONS_H
#include <stdint.h>

/// Allocations made so far by any thread.
uint64_t lproj_allocation_count(void);

#endif
