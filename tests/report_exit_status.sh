#!/usr/bin/env bash
# report_exit_status.sh COMMAND...: runs COMMAND, prints "exit S" with its status and exits with it.
# Started by mpiexec around each rank, it shows every rank's own exit status (tests/newcomer.cmake).
"$@"
status=$?
echo "exit $status"
exit $status
