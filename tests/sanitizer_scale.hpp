// How far the scale tests go under AddressSanitizer. ASan makes the simulator's and verifier's
// arithmetic 3-5x slower and finds a memory error at any size, so the cases past
// sanitizer_max_ranks run in the release build only (CI runs both); under ASan they skip with a
// reason, and every code path they reach is reached at 64 ranks or fewer there. The soak test
// asks under_address_sanitizer too (ASan's allocator hides the bytes held from glibc).
#pragma once

namespace ringlab::test_scale {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool under_address_sanitizer = true;
#else
inline constexpr bool under_address_sanitizer = false;
#endif

inline constexpr int sanitizer_max_ranks = 64;

// True where a case with `nranks` ranks runs in this build.
constexpr bool runs_at(int nranks) { return !under_address_sanitizer || nranks <= sanitizer_max_ranks; }

inline constexpr const char* skip_reason = "past 64 ranks under AddressSanitizer; the release build runs it";

}  // namespace ringlab::test_scale
