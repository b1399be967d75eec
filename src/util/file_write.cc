#include "util/file_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rigplan {

Status write_file_atomic(const std::string& path, std::string_view text, std::string& backup) {
  namespace fs = std::filesystem;
  std::error_code ec;
  backup.clear();
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec)
    return Status::io_error(fmt::format("{}: {}", target.parent_path().string(), ec.message()));
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      fs::remove(temporary, ec);
      return Status::io_error(fmt::format("{}: cannot write the file", temporary));
    }
  }
  if (fs::exists(target, ec)) {
    const std::string bak = path + ".bak";
    fs::copy_file(target, bak, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove(temporary, ec);
      return Status::io_error(fmt::format("{}: cannot keep the previous file: {}", bak, why));
    }
    backup = bak;
  }
  fs::rename(temporary, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(temporary, ec);
    return Status::io_error(fmt::format("{}: {}", path, why));
  }
  return {};
}

}  // namespace rigplan
