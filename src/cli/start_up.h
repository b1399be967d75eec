// What the rigplan executable does before it parses its command line, to answer sooner.
#pragma once

namespace rigplan::cli {

// Asks the kernel to back the heap a command fills with 2 MB pages. A command builds a few MB of
// structures (the catalog and the zoo read from their images; recommend's options: about 30 MB)
// and every 4 KB page of it is otherwise a page fault of its own: 1,100 faults for
// `gpus list --json`, 7,900 for `recommend --preset chatbot-70b`, most of their time on a
// virtual machine. Linux with glibc and transparent huge pages in `madvise` or `always` mode;
// elsewhere, or when the heap cannot grow as asked, it does nothing. For short-lived processes:
// the heap keeps what it reserves and is never given back.
void use_huge_pages_for_the_heap();

// For a long-lived process that answers request after request (rigplan serve): memory freed by
// one answer is kept for the next instead of being given back to the kernel and faulted in again,
// 4 KB at a time. glibc's defaults give back the top of a heap past 128 KB and map blocks over
// 128 KB (after the first, the largest freed) on their own: an uncached recommend then took
// about 900 page faults, more of its time than its arithmetic on a virtual machine. Each heap
// keeps at most 32 MB free at its top; blocks up to that size come from the heaps. Linux with
// glibc; elsewhere it does nothing.
void keep_freed_memory_for_reuse();

}  // namespace rigplan::cli
