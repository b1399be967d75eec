#include "cli/start_up.h"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ with glibc

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace rigplan::cli {

#if defined(__linux__) && defined(__GLIBC__)
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;  // x86-64 and arm64 with 4 KB pages
// The heap is grown by this much at once, so that it is one range of memory that the advice
// covers; the part never touched costs address space only.
constexpr int kHeapReserve = 64 << 20;
// Blocks up to this size come from the heap (glibc's largest dynamic mmap threshold on 64-bit),
// so that a large vector is in huge pages too rather than a mapping of 4 KB pages of its own.
constexpr int kMmapThreshold = 32 << 20;
// A block larger than what is left at the top of the fresh heap (132 KB), so that allocating it
// grows the heap by kHeapReserve.
constexpr size_t kProbe = size_t{1} << 20;
// Room for malloc's bookkeeping of a block, bytes.
constexpr std::uintptr_t kBoundarySlack = 64;

void* volatile held_below_boundary = nullptr;  // volatile: the block is allocated all the same

}  // namespace

void use_huge_pages_for_the_heap() {
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 1 || mallopt(M_TOP_PAD, kHeapReserve) != 1)
    return;
  void* volatile probe = std::malloc(kProbe);  // volatile: the pair is not optimised away
  if (!probe) return;
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  // Growing the heap wrote malloc's bookkeeping after the probe, and a 2 MB range with a page
  // already in it is filled in 4 KB pages: the advice starts at the next boundary.
  const std::uintptr_t from = (at + kProbe + kBoundarySlack + kHugePage - 1) & ~(kHugePage - 1);
  std::free(probe);
  char* const heap_top = static_cast<char*>(sbrk(0));
  const auto top = reinterpret_cast<std::uintptr_t>(heap_top);
  // A heap that could not grow in place (mmapped instead) lies elsewhere: nothing to advise.
  if (top <= from || top - from > 2 * static_cast<std::uintptr_t>(kHeapReserve)) return;
  if (madvise(heap_top - (top - from), top - from, MADV_HUGEPAGE) != 0) return;
  // The heap from `at` up to `from` stays in 4 KB pages: one block that is never freed or touched
  // keeps it from being handed out, so that what follows starts at `from`. Held here, it is
  // memory still reachable at exit, not a leak.
  if (from - at > kBoundarySlack) held_below_boundary = std::malloc(from - at - kBoundarySlack);
}
#else
void use_huge_pages_for_the_heap() {}
#endif

}  // namespace rigplan::cli
