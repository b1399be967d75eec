#include "rigplan/input.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>

namespace rigplan::input {
namespace {

TEST(Input, SaysWhatAFieldAccepts) {
  EXPECT_EQ(kTensorParallel.accepted(), "an integer from 1 to 1048576");
  EXPECT_EQ(kGenTokens.accepted(), "an integer from 0 to 100000000 tokens");
  constexpr NumberField kShare{"share", 0, 1, false, true};
  EXPECT_EQ(kShare.accepted(), "a number > 0 and <= 1");
}

TEST(Input, RefusesWhatIsNotAFiniteNumberInRange) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(problem(kBatch, 8), "");
  EXPECT_EQ(problem(kBatch, std::nan("")),
            "is not a number; expected an integer from 1 to 1000000000");
  EXPECT_EQ(problem(kBatch, inf), "is out of range; expected an integer from 1 to 1000000000");
  EXPECT_EQ(problem(kBatch, 2.5),
            "is not a whole number; expected an integer from 1 to 1000000000");
  EXPECT_EQ(problem(kBatch, 0), "is out of range; expected an integer from 1 to 1000000000");
  EXPECT_EQ(problem(kBatch, 1e30), "is out of range; expected an integer from 1 to 1000000000");
  constexpr NumberField kShare{"share", 0, 1, false, true};
  EXPECT_EQ(problem(kShare, 0), "is out of range; expected a number > 0 and <= 1");
  EXPECT_EQ(problem(kShare, 1), "");
}

TEST(Input, NamesTheOptionAndTheValue) {
  EXPECT_TRUE(check(kTensorParallel, 8).ok());
  const Status s = check(kTensorParallel, 2147483648.0);
  EXPECT_EQ(s.code(), Status::Code::kInvalidInput);
  EXPECT_EQ(s.message(), "--tp 2147483648 is out of range; expected an integer from 1 to 1048576");
  EXPECT_EQ(check(kBatch, std::nan("")).message(),
            "--batch nan is not a number; expected an integer from 1 to 1000000000");
  EXPECT_TRUE(check(kBatch, std::optional<int>()).ok());
}

TEST(Input, EveryFieldIsListedOnceWithASaneRange) {
  std::set<const NumberField*> seen;
  for (const NumberField* f : all_number_fields()) {
    EXPECT_TRUE(seen.insert(f).second) << f->name;
    EXPECT_LT(f->lo, f->hi) << f->name;
    EXPECT_TRUE(std::isfinite(f->hi)) << f->name << ": every input has an upper bound";
    // Counts stay exact in doubles and within 32-bit ints.
    if (f->integer) {
      EXPECT_LE(f->hi, 2147483647.0) << f->name;
    }
  }
}

TEST(Input, TheDocsListEveryField) {
  std::ifstream in(std::string(RIGPLAN_SOURCE_DIR) + "/docs/input.md");
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(docs.empty());
  for (const NumberField* f : all_number_fields()) {
    const std::string name(f->name);
    EXPECT_TRUE(docs.find("--" + name + "`") != std::string::npos ||
                docs.find("`" + name + "`") != std::string::npos)
        << "docs/input.md does not name " << name;
    EXPECT_NE(docs.find(f->accepted()), std::string::npos)
        << "docs/input.md does not say what " << name << " accepts: " << f->accepted();
  }
}

TEST(Input, ReadsFilesUpToTheLimit) {
  auto missing = read_file("/nonexistent/rigplan.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "/nonexistent/rigplan.toml: cannot read the file");
  // A device without end is refused at the limit instead of filling the memory.
  auto endless = read_file("/dev/zero");
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.status().message(), "/dev/zero: larger than 64 MiB, the most rigplan reads");
}

}  // namespace
}  // namespace rigplan::input
