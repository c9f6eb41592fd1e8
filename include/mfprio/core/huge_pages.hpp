#pragma once
/// \file
/// `huge_page_allocator<T>`: an allocator for the large buffers of a queue pass that are read
/// in random order (the staged entries the sort gathers from). A block of at least 2 MiB is
/// aligned on 2 MiB and, on Linux, marked `MADV_HUGEPAGE`, so that a kernel whose transparent
/// huge pages are in `madvise` mode (a common default) backs it with 2 MiB pages: a random
/// read then rarely misses the TLB. Smaller blocks, and other systems, get plain
/// `operator new` memory. The advice is only advice: if the kernel declines, the memory is
/// ordinary pages and nothing else changes.
///
/// `bench/queue_bench`'s pass benchmarks (1,000,000 staged entries of 32 bytes, 32 MB) show
/// what the pages save (bench/README.md).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mfprio {

template <class T>
struct huge_page_allocator {
    using value_type = T;

    /// The huge page size the blocks are aligned on, and the size from which they are.
    static constexpr std::size_t page = std::size_t{2} << 20;

    huge_page_allocator() noexcept = default;
    template <class U>
    constexpr huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (!huge(bytes)) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
        if (bytes > std::numeric_limits<std::size_t>::max() - page) throw std::bad_alloc();
        const std::size_t rounded = round_up(bytes);
        void* p = std::aligned_alloc(page, rounded);
        if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        (void)::madvise(p, rounded, MADV_HUGEPAGE); // advice: a refusal leaves ordinary pages
#endif
        return static_cast<T*>(p);
    }

    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (!huge(bytes)) ::operator delete(p, std::align_val_t{alignof(T)});
        else std::free(p);
    }

    template <class U>
    friend constexpr bool operator==(const huge_page_allocator&, const huge_page_allocator<U>&) noexcept {
        return true;
    }

private:
    static constexpr bool huge(std::size_t bytes) noexcept { return bytes >= page; }
    static constexpr std::size_t round_up(std::size_t bytes) noexcept { return (bytes + page - 1) / page * page; }
};

} // namespace mfprio
