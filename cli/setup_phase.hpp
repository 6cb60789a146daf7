// The waits of a command's own set-up, after the communicator exists and before its first timed
// step (the configuration agreement check, the exchange of the ranks' CPUs, the memcpy release,
// buffer registration), each already bounded by --timeout: a TimeoutError from one says that it
// came from the set-up and what the set-up was doing, "[set-up: WHAT, after --timeout T s]".
#pragma once

#include <fmt/format.h>

#include <string_view>

#include "collectives/communicator.hpp"

namespace ringlab::cli {

template <typename Wait>
decltype(auto) during_setup(std::string_view what, double timeout_seconds, Wait&& wait) {
  try {
    return wait();
  } catch (const TimeoutError& error) {
    throw TimeoutError(fmt::format("{} [set-up: {}, after --timeout {} s]", error.what(), what, timeout_seconds));
  }
}

}  // namespace ringlab::cli
