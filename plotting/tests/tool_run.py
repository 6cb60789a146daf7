"""What the plotting tools' tests share: run a tool on JSON documents written to files."""
import json
import os
import subprocess
import sys


def run_tool(tool, directory, named_documents, *extra):
    """Writes each (file name, document) into directory (a str as is, anything else as JSON), runs
    `python3 tool FILES... EXTRA...` and returns (exit status, stdout + stderr)."""
    paths = []
    for name, document in named_documents:
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(document if isinstance(document, str) else json.dumps(document))
        paths.append(path)
    done = subprocess.run([sys.executable, tool, *paths, *extra], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


class Expectations:
    """Checks of a tool's (exit status, output): each expect() is one case; report() prints the
    failures and "NAME: P passed, F failed", and returns the exit status of the test."""

    def __init__(self):
        self.cases = 0
        self.failures = []

    def expect(self, what, result, status, text):
        self.cases += 1
        if result[0] != status or text not in result[1]:
            self.failures.append(f"{what}: expected status {status} and '{text}', got {result[0]}: {result[1].strip()}")

    def report(self, name):
        for failure in self.failures:
            print("FAIL:", failure)
        print(f"{name}: {self.cases - len(self.failures)} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0
