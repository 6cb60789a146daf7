// The `ringlab` subcommands. Each add_*_command registers its options on the app and returns the
// function that runs it (exit status).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace ringlab::cli {

using CommandRunner = std::function<int()>;

CommandRunner add_schedule_command(CLI::App& app);
CommandRunner add_verify_command(CLI::App& app);
CommandRunner add_allreduce_command(CLI::App& app);
// `command_line` is recorded in the JSON report.
CommandRunner add_bench_command(CLI::App& app, const std::string& command_line);
// `ringlab topology show`.
CommandRunner add_topology_command(CLI::App& app);
// `ringlab simulate`; `command_line` is recorded in the JSON report.
CommandRunner add_simulate_command(CLI::App& app, const std::string& command_line);
// `ringlab calibrate` (measure, fit, write a calibrated topology) and `ringlab compare` (measured
// bench reports against model predictions); `command_line` is recorded in their files.
CommandRunner add_calibrate_command(CLI::App& app, const std::string& command_line);
CommandRunner add_compare_command(CLI::App& app, const std::string& command_line);
// `ringlab tune`: the selection table `bench --algo auto --tuning FILE` runs from.
CommandRunner add_tune_command(CLI::App& app, const std::string& command_line);
#ifdef RINGLAB_HAVE_TRAINING
// `ringlab train` (docs/training.md); `command_line` is recorded in the JSON report.
CommandRunner add_train_command(CLI::App& app, const std::string& command_line);
// `ringlab make-cifar`: synthetic data in the CIFAR-10 binary format.
CommandRunner add_make_cifar_command(CLI::App& app);
// `ringlab replay` (docs/training.md): one iteration of a real network, real collectives.
CommandRunner add_replay_command(CLI::App& app, const std::string& command_line);
// `ringlab make-miniimagenet`: synthetic data in the mini-ImageNet layout (docs/training.md).
CommandRunner add_make_mini_imagenet_command(CLI::App& app);
#endif

}  // namespace ringlab::cli
