// A progress line for a long command (ringlab simulate): after `after_seconds`, at most once a
// second, "# progress: ..." on stderr with the share of the work done and an estimate of the time
// left (the elapsed time scaled by the work left over the work done, each unit of work weighted
// by its caller's guess of its cost), also within one long unit when its maker reports how far
// it is (within). Silent for a run shorter than that, and when disabled.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ringlab::cli {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;

  ProgressLine(std::string what, double total_weight, int total_units, double after_seconds, bool enabled,
               std::FILE* out = stderr)
      : what_(std::move(what)),
        total_weight_(total_weight),
        total_units_(total_units),
        after_seconds_(after_seconds),
        enabled_(enabled),
        out_(out),
        start_(Clock::now()) {}

  // One unit of `weight` done; prints when the run has lasted long enough and work is left.
  void done(double weight) {
    done_weight_ += weight;
    ++done_units_;
    if (done_units_ < total_units_) print(done_weight_, "");
  }

  // The next unit, of `weight`, is `fraction` (0 to 1) done; prints as done does.
  void within(double weight, double fraction) {
    if (done_units_ < total_units_)
      print(done_weight_ + weight * fraction, fmt::format(" and {:.0f} % of the next", 100 * fraction));
  }

 private:
  void print(double done_weight, const std::string& of_the_next) {
    if (!enabled_) return;
    const double elapsed = seconds_since(start_);
    if (elapsed < after_seconds_ || (printed_ && seconds_since(last_print_) < 1.0)) return;
    const double left = done_weight > 0 ? elapsed * (total_weight_ - done_weight) / done_weight : 0.0;
    fmt::print(out_, "# progress: {}: {} of {} done{}, {:.1f} s elapsed, about {:.0f} s left\n", what_, done_units_,
               total_units_, of_the_next, elapsed, left);
    std::fflush(out_);
    printed_ = true;
    last_print_ = Clock::now();
  }

  static double seconds_since(Clock::time_point point) {
    return std::chrono::duration<double>(Clock::now() - point).count();
  }

  std::string what_;
  double total_weight_;
  int total_units_;
  double after_seconds_;
  bool enabled_;
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_print_;
  double done_weight_ = 0;
  int done_units_ = 0;
  bool printed_ = false;
};

}  // namespace ringlab::cli
