// The fuzz input as one whole JSON document, read as ringlab's JSON file reader reads a file's
// text (io::parse_json_text: trailing text refused, overflows named); nothing for an input that
// is not one, since std::invalid_argument is the reader's answer to bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "io/json_input.hpp"

namespace ringlab::fuzz {

inline std::optional<nlohmann::json> parse_fuzz_json(const std::uint8_t* data, std::size_t size) {
  try {
    return io::parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace ringlab::fuzz
