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

}  // namespace rigplan::cli
