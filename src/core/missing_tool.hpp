// A program a command needs is not installed, or lacks what it needs (Python with pandas and
// matplotlib for the HTML report). Its own exit code (69, EX_UNAVAILABLE of sysexits.h), not the
// 3 of a machine without a GPU, which would send the user after the wrong problem.
#pragma once
#include "core/error.hpp"

namespace gd {

class MissingTool : public Error {
 public:
  using Error::Error;
};

}  // namespace gd
