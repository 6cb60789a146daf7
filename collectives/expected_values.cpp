#include "collectives/expected_values.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "collectives/reduce.hpp"

namespace ringlab {

namespace {

// Largest magnitude of a partial sum that keeps every integer exact in the narrowest float type.
constexpr double exact_sum_limit = 256.0;  // bfloat16 has 8 significant bits

// Sum inputs lie in [-bound, bound) with nranks * bound <= exact_sum_limit / 2.
std::int64_t sum_bound(int nranks) {
  return static_cast<std::int64_t>(std::max(1.0, std::min(8.0, exact_sum_limit / (2.0 * nranks))));
}

// Each input is a function of (rank, key) with key = hash(element) mod keys(op): a misplaced
// chunk shows up as wrong values (no short period in the element index), while a buffer is still
// filled in O(count) through a table of keys(op) values, whatever the number of ranks.
std::int64_t keys(ReduceOp op, int nranks) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return 2 * sum_bound(nranks);
    case ReduceOp::prod: return 15;
    case ReduceOp::min:
    case ReduceOp::max: return 17;
  }
  return 1;
}

std::uint64_t mix(std::uint64_t element) {
  std::uint64_t z = element + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::int64_t key_of(std::int64_t element, std::int64_t key_count) {
  return static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(element)) % static_cast<std::uint64_t>(key_count));
}

double value_for_key(ReduceOp op, int rank, int nranks, std::int64_t key) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: {
      const std::int64_t bound = sum_bound(nranks);
      return static_cast<double>((key * 5 + rank * 3) % (2 * bound) - bound);
    }
    case ReduceOp::prod:
      // Factors of -1, 1 and 2; at most 8 ranks contribute a 2, so products stay within 2^8.
      if (rank < 8 && (key + rank) % 3 == 0) return 2.0;
      return (key + 2 * rank) % 5 == 0 ? -1.0 : 1.0;
    case ReduceOp::min:
    case ReduceOp::max: return static_cast<double>((key * 7 + rank * 13) % 17 - 8);
  }
  return 0.0;
}

template <typename T>
T from_double(double value) {
  if constexpr (std::is_same_v<T, float16>) return to_float16(static_cast<float>(value));
  else if constexpr (std::is_same_v<T, bfloat16>) return to_bfloat16(static_cast<float>(value));
  else return static_cast<T>(value);
}

template <typename T>
void fill(void* data, std::int64_t count, const std::vector<double>& table) {
  std::vector<T> typed(table.size());
  std::transform(table.begin(), table.end(), typed.begin(), from_double<T>);
  auto* out = static_cast<T*>(data);
  const auto key_count = static_cast<std::int64_t>(table.size());
  for (std::int64_t i = 0; i < count; ++i) out[i] = typed[static_cast<std::size_t>(key_of(i, key_count))];
}

void fill_from_table(void* data, std::int64_t count, DataType type, const std::vector<double>& table) {
  switch (type) {
    case DataType::float32: fill<float>(data, count, table); break;
    case DataType::float64: fill<double>(data, count, table); break;
    case DataType::float16: fill<float16>(data, count, table); break;
    case DataType::bfloat16: fill<bfloat16>(data, count, table); break;
    case DataType::int32: fill<std::int32_t>(data, count, table); break;
    case DataType::int64: fill<std::int64_t>(data, count, table); break;
  }
}

double combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min: return b < a ? b : a;
    case ReduceOp::max: return b > a ? b : a;
  }
  return a;
}

}  // namespace

double input_value(ReduceOp op, int rank, int nranks, std::int64_t element) {
  return value_for_key(op, rank, nranks, key_of(element, keys(op, nranks)));
}

void fill_input(void* data, std::int64_t count, DataType type, ReduceOp op, int rank, int nranks) {
  std::vector<double> table(static_cast<std::size_t>(keys(op, nranks)));
  for (std::size_t key = 0; key < table.size(); ++key)
    table[key] = value_for_key(op, rank, nranks, static_cast<std::int64_t>(key));
  fill_from_table(data, count, type, table);
}

void fill_expected_allreduce(void* data, std::int64_t count, DataType type, ReduceOp op, int nranks) {
  std::vector<double> table(static_cast<std::size_t>(keys(op, nranks)));
  for (std::size_t key = 0; key < table.size(); ++key) {
    const auto k = static_cast<std::int64_t>(key);
    double result = value_for_key(op, 0, nranks, k);
    for (int rank = 1; rank < nranks; ++rank) result = combine(op, result, value_for_key(op, rank, nranks, k));
    table[key] = result;
  }
  fill_from_table(data, count, type, table);
  if (op == ReduceOp::avg) divide_elements(data, static_cast<std::size_t>(count), type, nranks);
}

std::int64_t count_mismatches(const void* actual, const void* expected, std::int64_t count, DataType type) {
  const std::size_t size = element_size(type);
  if (count > 0 && std::memcmp(actual, expected, static_cast<std::size_t>(count) * size) == 0) return 0;
  const auto* a = static_cast<const unsigned char*>(actual);
  const auto* b = static_cast<const unsigned char*>(expected);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i)
    wrong += std::memcmp(a + static_cast<std::size_t>(i) * size, b + static_cast<std::size_t>(i) * size, size) != 0;
  return wrong;
}

}  // namespace ringlab
