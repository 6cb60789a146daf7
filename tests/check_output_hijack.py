#!/usr/bin/env python3
"""check_output_hijack.py RINGLAB SOURCE_DIR WORK_DIR: every command that writes a file, attacked.

For each output of each command (bench, simulate --json/--trace, compare, calibrate --from-report,
train, replay --json/--save-profile, topology detect, make-cifar), two attacks by a local user who
can write to the output's folder (issue 27, point 1):
  1. a symbolic link to a victim file planted at the output path: the command, even with --force,
     must refuse before doing any work, leave the link a link and the victim unchanged;
  2. links to the victim planted at every temporary name a writer could predict (PATH.tmp and
     PATH.tmp.PID for the next 400 process ids): the command must succeed, the output must be a
     regular file, the victim unchanged, and no temporary left behind.
Prints one line per case and 'N passed, N failed'; exits non-zero on any failure.
"""
import os
import pathlib
import shutil
import subprocess
import sys


def run(command, cwd):
    return subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=240)


def main():
    ringlab, source, work = os.path.abspath(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve(), pathlib.Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    victim = work / "victim"
    report = work / "fixture-bench.json"
    fixture = run([ringlab, "bench", "--backend", "threads", "--ranks", "2", "-b", "8K", "-e", "64K", "-f", "8",
                   "-n", "2", "-w", "1", "--algo", "ring", "--json", str(report)], work)
    if fixture.returncode != 0:
        print(fixture.stdout)
        print("cannot make the bench report the compare case needs")
        return 1
    calibration = source / "results" / "calibration" / "2026-12-03-n4.json"
    bench = ["bench", "--backend", "threads", "--ranks", "2", "-b", "8", "-e", "64", "-n", "1", "-w", "0", "--algo", "ring"]
    simulate = ["simulate", "--topology", "switch:4", "-b", "64", "-e", "64", "--algo", "ring", "--quiet"]
    train = ["train", "--mode", "dp", "--backend", "threads", "--ranks", "2", "--synthetic", "256", "--steps", "1",
             "--model", "cifar-vgg,width=4,fc=64", "--batch", "32"]
    replay = ["replay", "--workload", "alexnet", "--device-tflops", "10", "--algo", "ring", "--batch", "2",
              "--iterations", "1", "--mode", "dp", "--backend", "threads", "--ranks", "2"]
    # (name, command before the output option, output option or None for make-cifar's folder)
    cases = [("bench --json", bench, "--json"),
             ("simulate --json", simulate, "--json"),
             ("simulate --trace", simulate, "--trace"),
             ("compare --json", ["compare", str(report), "--topology", "switch:2", "--quiet"], "--json"),
             ("calibrate --from-report --json", ["calibrate", "--from-report", str(calibration), "--quiet"], "--json"),
             ("topology detect --json", ["topology", "detect"], "--json")]
    help_text = run([ringlab, "--help"], work).stdout
    if "train" in help_text:
        cases += [("train --json", train, "--json"), ("replay --json", replay, "--json"),
                  ("replay --save-profile", replay, "--save-profile"),
                  ("make-cifar", ["make-cifar", "--records", "10", "--files", "1", "--out"], None)]
    passed = failed = 0
    for index, (name, command, option) in enumerate(cases):
        folder = work / f"case{index}"
        folder.mkdir()
        victim.write_text("precious\n")
        target = folder / ("data_batch_1.bin" if option is None else "out.json")
        tail = [str(folder)] if option is None else [option, str(target)]
        # 1. a link at the output itself
        target.symlink_to(victim)
        result = run([ringlab, *command, *tail, "--force"], folder)
        problems = []
        if result.returncode == 0:
            problems.append("succeeded through a planted link")
        if "is a symbolic link" not in result.stdout:
            problems.append("no message naming the link")
        if not target.is_symlink() or victim.read_bytes() != b"precious\n":
            problems.append("the link or its target was changed")
        target.unlink()
        # 2. links at every predictable temporary name
        last_pid = int(pathlib.Path("/proc/sys/kernel/ns_last_pid").read_text())
        planted = [folder / f"{target.name}.tmp"] + [folder / f"{target.name}.tmp.{pid}" for pid in
                                                       range(last_pid + 1, last_pid + 401)]
        for link in planted:
            link.symlink_to(victim)
        result = run([ringlab, *command, *tail], folder)
        if result.returncode != 0:
            problems.append(f"failed with planted temporaries: {result.stdout[-400:]}")
        if target.is_symlink() or not target.is_file():
            problems.append("the output is not a regular file")
        if victim.read_bytes() != b"precious\n":
            problems.append("the victim was written through a planted temporary")
        leftovers = [p.name for p in folder.iterdir() if p != target and p not in planted]
        if leftovers:
            problems.append(f"left behind: {leftovers}")
        if problems:
            failed += 1
            print(f"FAIL {name}: {'; '.join(problems)}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
