// Runs every MPI collective MPICH selects through its collective-selection tree, under whatever
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE names (CTest: the file `ringlab tune --mpich-json`
// wrote). MPICH aborts on a collective its tree has no rule for and on an algorithm name it does
// not know, so reaching the end shows the file is complete and valid. The all-reduce results are
// checked at sizes on both sides of the file's boundaries, with a built-in op and with a
// non-commutative user op (the file's fallback). Prints "mpich selection check: OK" on rank 0;
// exits 77 (skipped) under an MPI that is not MPICH.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

// a o b = b, elementwise: associative, not commutative; the all-reduce result is rank N-1's value.
void take_right(void* in, void* inout, int* length, MPI_Datatype*) {
  (void)in;
  (void)inout;
  (void)length;
}

int check_allreduce(int rank, int size, MPI_Op user_op) {
  int errors = 0;
  for (int count : {1, 3, 200, 5000, 70000, 1 << 20}) {
    std::vector<float> input(static_cast<std::size_t>(count), static_cast<float>(rank + 1)), output(input.size());
    MPI_Allreduce(input.data(), output.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const float sum = static_cast<float>(size * (size + 1) / 2);
    for (float value : output) errors += value != sum;
    MPI_Request request;
    MPI_Iallreduce(input.data(), output.data(), count, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (float value : output) errors += value != static_cast<float>(size);
    MPI_Allreduce(input.data(), output.data(), count, MPI_FLOAT, user_op, MPI_COMM_WORLD);
    for (float value : output) errors += value != static_cast<float>(size);
  }
  return errors;
}

void run_other_collectives(int rank, int size) {
  const MPI_Comm world = MPI_COMM_WORLD;
  const auto n = static_cast<std::size_t>(size);
  std::vector<int> one(n, rank), all(n * n), counts(n, 1), displacements(n);
  std::iota(displacements.begin(), displacements.end(), 0);
  std::vector<MPI_Datatype> types(n, MPI_INT);
  std::vector<int> byte_displacements(n);
  for (std::size_t i = 0; i < n; ++i) byte_displacements[i] = static_cast<int>(i * sizeof(int));
  int value = rank, result = 0;
  MPI_Barrier(world);
  MPI_Bcast(&value, 1, MPI_INT, 0, world);
  MPI_Reduce(&value, &result, 1, MPI_INT, MPI_SUM, 0, world);
  MPI_Allgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, world);
  MPI_Allgatherv(&value, 1, MPI_INT, all.data(), counts.data(), displacements.data(), MPI_INT, world);
  MPI_Gather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, 0, world);
  MPI_Gatherv(&value, 1, MPI_INT, all.data(), counts.data(), displacements.data(), MPI_INT, 0, world);
  MPI_Scatter(one.data(), 1, MPI_INT, &result, 1, MPI_INT, 0, world);
  MPI_Scatterv(one.data(), counts.data(), displacements.data(), MPI_INT, &result, 1, MPI_INT, 0, world);
  MPI_Alltoall(one.data(), 1, MPI_INT, all.data(), 1, MPI_INT, world);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, one.data(), 1, MPI_INT, world);
  MPI_Alltoallv(one.data(), counts.data(), displacements.data(), MPI_INT, all.data(), counts.data(), displacements.data(),
                MPI_INT, world);
  MPI_Alltoallw(one.data(), counts.data(), byte_displacements.data(), types.data(), all.data(), counts.data(),
                byte_displacements.data(), types.data(), world);
  MPI_Reduce_scatter(one.data(), &result, counts.data(), MPI_INT, MPI_SUM, world);
  MPI_Reduce_scatter_block(one.data(), &result, 1, MPI_INT, MPI_SUM, world);
  MPI_Scan(&value, &result, 1, MPI_INT, MPI_SUM, world);
  MPI_Exscan(&value, &result, 1, MPI_INT, MPI_SUM, world);
  std::vector<MPI_Request> requests(8);
  MPI_Ibarrier(world, &requests[0]);
  MPI_Ibcast(&value, 1, MPI_INT, 0, world, &requests[1]);
  MPI_Iallgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, world, &requests[2]);
  MPI_Waitall(3, requests.data(), MPI_STATUSES_IGNORE);
  MPI_Ireduce(&value, &result, 1, MPI_INT, MPI_SUM, 0, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Ialltoall(one.data(), 1, MPI_INT, all.data(), 1, MPI_INT, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Igather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, 0, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Iscatter(one.data(), 1, MPI_INT, &result, 1, MPI_INT, 0, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Iscan(&value, &result, 1, MPI_INT, MPI_SUM, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Ireduce_scatter_block(one.data(), &result, 1, MPI_INT, MPI_SUM, world, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Comm ring;
  const int periodic = 1;
  MPI_Cart_create(world, 1, &size, &periodic, 0, &ring);
  std::vector<int> neighbours(2);
  MPI_Neighbor_allgather(&value, 1, MPI_INT, neighbours.data(), 1, MPI_INT, ring);
  MPI_Comm_free(&ring);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (std::strstr(version, "MPICH") == nullptr) {
    if (rank == 0) std::printf("mpich selection check: skipped, the MPI is not MPICH\n");
    MPI_Finalize();
    return 77;
  }
  MPI_Op user_op;
  MPI_Op_create(take_right, 0, &user_op);
  const int errors = check_allreduce(rank, size, user_op);
  MPI_Op_free(&user_op);
  run_other_collectives(rank, size);
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf(total == 0 ? "mpich selection check: OK\n" : "mpich selection check: %d wrong elements\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
