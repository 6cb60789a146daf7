#include "report/bandwidth.hpp"

namespace ringlab::report {

double algbw_gbps(std::int64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

double busbw_gbps(double algbw, int nranks) { return nranks > 1 ? algbw * 2.0 * (nranks - 1) / nranks : 0.0; }

}  // namespace ringlab::report
