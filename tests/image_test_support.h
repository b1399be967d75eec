// What the tests of an embedded image share (the catalog's, src/catalog/catalog_image.h; the
// zoo's, src/workload/zoo_image.h): the image read back once, and the checks every image passes.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "rigplan/status.h"
#include "test_support.h"

namespace rigplan::testing {

// How the build writes a T as an image and a command reads it back, the image compiled in, and
// the T its TOML files load.
template <typename T>
struct ImageFormat {
  std::string (*write)(const T&);
  Result<T> (*read)(std::string_view);
  std::string_view (*embedded)();
  const T& (*from_toml)();
};

// The compiled-in image read back, once per test binary (one format per type).
template <typename T>
const T& read_back(const ImageFormat<T>& format) {
  static const T kRead = loaded(format.read(format.embedded()));
  return kRead;
}

// Written from the TOML files now, the image is byte for byte what the build compiled in; and
// reading it back loses nothing.
template <typename T>
void expect_image_of_toml(const ImageFormat<T>& format) {
  EXPECT_EQ(format.write(format.from_toml()), format.embedded());
  EXPECT_EQ(format.write(read_back(format)), format.embedded());
}

// The image cut short anywhere (empty, `header_cut` bytes into the header, a third, half, all
// but its last byte) is an error, not a crash; so are a file that does not start with the magic
// line and an image with a byte after its last entry, each with its message.
template <typename T>
void expect_truncated_and_foreign_rejected(const ImageFormat<T>& format, size_t header_cut,
                                           std::string_view foreign, std::string_view no_magic,
                                           std::string_view longer) {
  const std::string_view image = format.embedded();
  for (size_t cut :
       {size_t{0}, size_t{10}, header_cut, image.size() / 3, image.size() / 2, image.size() - 1}) {
    EXPECT_FALSE(format.read(image.substr(0, cut)).ok()) << cut;
  }
  EXPECT_EQ(format.read(foreign).status().message(), no_magic);
  EXPECT_EQ(format.read(std::string(image) + "x").status().message(), longer);
}

}  // namespace rigplan::testing
