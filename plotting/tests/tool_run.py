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
