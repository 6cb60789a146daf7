// ringlab: measure, model and replay all-reduce. One binary, one subcommand per job.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "cli/launch.hpp"
#include "collectives/backends/rank_errors.hpp"
#include "io/printable.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ringlab: measure, model and replay all-reduce (parameter server, ring, interval-paired ring and "
               "baselines)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ringlab 0.1.0");
  const ringlab::cli::CommandRunner schedule = ringlab::cli::add_schedule_command(app);
  const ringlab::cli::CommandRunner verify = ringlab::cli::add_verify_command(app);
  const ringlab::cli::CommandRunner allreduce = ringlab::cli::add_allreduce_command(app);
  std::string command_line = "ringlab";
  for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
  const ringlab::cli::CommandRunner bench = ringlab::cli::add_bench_command(app, command_line);
  const ringlab::cli::CommandRunner topology = ringlab::cli::add_topology_command(app);
  const ringlab::cli::CommandRunner simulate = ringlab::cli::add_simulate_command(app, command_line);
  const ringlab::cli::CommandRunner calibrate = ringlab::cli::add_calibrate_command(app, command_line);
  const ringlab::cli::CommandRunner compare = ringlab::cli::add_compare_command(app, command_line);
  const ringlab::cli::CommandRunner tune = ringlab::cli::add_tune_command(app, command_line);
#ifdef RINGLAB_HAVE_TRAINING
  const ringlab::cli::CommandRunner train = ringlab::cli::add_train_command(app, command_line);
  const ringlab::cli::CommandRunner make_cifar = ringlab::cli::add_make_cifar_command(app);
  const ringlab::cli::CommandRunner replay = ringlab::cli::add_replay_command(app, command_line);
  const ringlab::cli::CommandRunner make_mini_imagenet = ringlab::cli::add_make_mini_imagenet_command(app);
#endif
  // Every rank of a launched job parses the same command line: rank 0 alone prints what is wrong
  // with it (or the help), every rank exits with the same status.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (ringlab::prints_shared_errors()) return app.exit(error);
    return error.get_exit_code();
  }
  try {
    if (app.got_subcommand("schedule")) return schedule();
    if (app.got_subcommand("verify")) return verify();
    if (app.got_subcommand("allreduce")) return allreduce();
    if (app.got_subcommand("bench")) return bench();
    if (app.got_subcommand("topology")) return topology();
    if (app.got_subcommand("simulate")) return simulate();
    if (app.got_subcommand("calibrate")) return calibrate();
    if (app.got_subcommand("compare")) return compare();
    if (app.got_subcommand("tune")) return tune();
#ifdef RINGLAB_HAVE_TRAINING
    if (app.got_subcommand("train")) return train();
    if (app.got_subcommand("make-cifar")) return make_cifar();
    if (app.got_subcommand("replay")) return replay();
    if (app.got_subcommand("make-miniimagenet")) return make_mini_imagenet();
#endif
  } catch (const ringlab::ReportedError&) {
    return 2;  // a rank of the threads job printed it
  } catch (const std::exception& error) {
    // What reaches here on a launched job with more than one rank was met by every rank before the
    // ranks started (errors while they run end the job from run_ranks): rank 0 says it. Escaped:
    // messages quote input (file names, values, names from files).
    if (ringlab::prints_shared_errors())
      fmt::print(stderr, "ringlab: error: {}\n", ringlab::io::printable(error.what(), true));
    return 2;
  }
  return 2;
}
