// Writing a file so that a reader sees the old text or the new, never a torn one.
#pragma once

#include <string>
#include <string_view>

#include "rigplan/status.h"

namespace rigplan {

// Writes `text` to a temporary file beside `path` and renames it over `path` (atomic on POSIX).
// An existing `path` is first copied to "<path>.bak", whose name goes into `backup` (else it is
// cleared). Creates missing directories. A failure is a kIoError Status and leaves `path` as it
// was.
Status write_file_atomic(const std::string& path, std::string_view text, std::string& backup);

}  // namespace rigplan
