// The schedule IR: an algorithm is data. See docs/architecture.md for the full semantics.
//
// A buffer of `count` elements is cut into `nchunks` chunks; chunk c holds elements
// [c*count/nchunks, (c+1)*count/nchunks). Each rank runs a list of steps; a step is a list of
// point-to-point ops on a half-open chunk range. A range [begin, end) has 0 <= begin < nchunks
// and begin < end <= begin + nchunks; when end > nchunks it wraps (chunks begin .. nchunks-1,
// then 0 .. end-nchunks-1). The i-th send from a to b in step k matches the i-th receive at b
// from a in step k, which must name the same chunk range.
// Sends read start-of-step values; receives land in scratch and are written (recv) or combined
// (recv_reduce, in op order) once the step's sends of that chunk have completed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

enum class Collective { allreduce, reduce_scatter, allgather, broadcast };
enum class OpKind { send, recv, recv_reduce };

inline constexpr Collective all_collectives[] = {Collective::allreduce, Collective::reduce_scatter,
                                                 Collective::allgather, Collective::broadcast};

std::string_view name_of(Collective collective);
std::string_view name_of(OpKind kind);
// Throws std::invalid_argument listing the valid names.
Collective parse_collective(std::string_view name);
OpKind parse_op_kind(std::string_view name);

struct ChunkRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  constexpr std::int64_t size() const { return end - begin; }
  friend constexpr bool operator==(const ChunkRange&, const ChunkRange&) = default;
};

struct Op {
  OpKind kind = OpKind::send;
  int peer = 0;
  ChunkRange chunks;
  friend constexpr bool operator==(const Op&, const Op&) = default;
};

using Step = std::vector<Op>;

struct RankProgram {
  std::vector<Step> steps;
};

// Elements [first, last) of a buffer.
struct ElementRange {
  std::int64_t first = 0;
  std::int64_t last = 0;
  constexpr std::int64_t size() const { return last - first; }
};

// First element of chunk c when `count` elements are cut into `nchunks` chunks (no overflow).
constexpr std::int64_t chunk_start(std::int64_t chunk, std::int64_t count, std::int64_t nchunks) {
  const std::int64_t quotient = count / nchunks;
  const std::int64_t remainder = count % nchunks;
  return chunk * quotient + (chunk * remainder) / nchunks;
}

// The element ranges a chunk range covers: one range, or two when the chunk range wraps.
// Empty element ranges (count < nchunks) are still returned so both ends agree on the shape.
std::vector<ElementRange> element_ranges(ChunkRange chunks, std::int64_t count, std::int64_t nchunks);

// A run of elements the executor moves as one message: a chunk range's element ranges cut into
// pieces of at most piece_elements, each range on its own (append_pieces). The flow-level model
// replays the executor's pieces with the same cut.
struct Piece {
  std::int64_t first = 0;  // element offset
  std::int64_t count = 0;  // elements
  std::int64_t last() const { return first + count; }  // exclusive
  bool overlaps(const Piece& other) const { return first < other.last() && other.first < last(); }
};
// Appends the pieces of `chunks` at `count` elements in `nchunks` chunks, in element order within
// each range; piece_elements >= 1 (any size up to INT64_MAX: a whole range is then one piece).
void append_pieces(std::vector<Piece>& pieces, ChunkRange chunks, std::int64_t count, std::int64_t nchunks,
                   std::int64_t piece_elements);

// Number of elements a chunk range covers (the sum of its element_ranges), without allocating.
constexpr std::int64_t element_count(ChunkRange chunks, std::int64_t count, std::int64_t nchunks) {
  if (chunks.end <= nchunks) return chunk_start(chunks.end, count, nchunks) - chunk_start(chunks.begin, count, nchunks);
  return count - chunk_start(chunks.begin, count, nchunks) + chunk_start(chunks.end - nchunks, count, nchunks);
}

// Block owned by `rank` in reduce-scatter / all-gather: chunks [rank*m, (rank+1)*m), m = nchunks/nranks.
ChunkRange block_of(int rank, int nranks, std::int64_t nchunks);

struct Schedule {
  std::string algorithm;
  Collective collective = Collective::allreduce;
  int nranks = 1;
  std::int64_t nchunks = 1;
  int root = 0;  // broadcast root (and parameter-server root); informational otherwise

  // Either one explicit program per rank (circulant == false, programs.size() == nranks), or a
  // single circulant template (circulant == true, programs.size() == 1) whose peers are offsets
  // from the rank and whose chunk ranges are offsets from rank*(nchunks/nranks), both modulo.
  // Ring and interval-paired are circulant: one template serves all ranks, so a schedule for
  // thousands of ranks costs O(steps), not O(ranks * steps).
  bool circulant = false;
  std::vector<RankProgram> programs;

  int num_steps() const;
  // The program of one rank with absolute peers and chunk ranges.
  RankProgram program(int rank) const;
  // One op of a circulant template resolved for `rank` (absolute peer and chunk range); the op
  // itself when the schedule is explicit. No range check on `rank`.
  Op resolve(const Op& op, int rank) const;
};

// Build a circulant schedule from its template.
Schedule make_circulant(std::string algorithm, Collective collective, int nranks, std::int64_t nchunks,
                        RankProgram relative_program);

}  // namespace ringlab
