#!/usr/bin/env python3
"""Checks that every project #include stays within the layers docs/architecture.md draws.

The "## Layers" table of docs/architecture.md names each folder and the folders it may include;
this script reads that table (so the page and the check cannot disagree), then every C++/CUDA
source the repository tracks, and prints each include that crosses into a folder its own folder
may not include. Includes name their folder from the repository root ("simulator/flow_level.hpp");
an include without a folder that is not a neighbour in the same directory is reported too.
Exit 0 when every include is allowed, 1 otherwise.
    python3 scripts/check-layers.py [REPOSITORY]
"""
import pathlib
import re
import subprocess
import sys

SOURCE = re.compile(r"\.(cpp|hpp|h|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_table(architecture: str) -> dict[str, set[str]]:
    """folder -> the folders it may include, from the table under '## Layers'."""
    section = architecture.split("\n## Layers", 1)
    if len(section) < 2:
        sys.exit("check-layers: docs/architecture.md has no '## Layers' section")
    allowed: dict[str, set[str]] = {}
    for line in section[1].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        may = set(re.findall(r"`([^`]+)/`", cells[2]))
        for folder in re.findall(r"`([^`]+)/`", cells[1]):
            allowed[folder] = may if "every folder" not in cells[2] else {"*"}
    if not allowed:
        sys.exit("check-layers: the '## Layers' table of docs/architecture.md has no rows")
    return allowed


def folder_of(path: str, folders: set[str]) -> str | None:
    """The longest table folder that contains path."""
    best = None
    for folder in folders:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    allowed = layer_table((root / "docs/architecture.md").read_text())
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
    tracked_set = set(tracked)
    folders = set(allowed)
    problems = []
    checked = 0
    for path in tracked:
        if not SOURCE.search(path):
            continue
        own = folder_of(path, folders)
        if own is None:
            continue
        text = (root / path).read_text(errors="replace")
        for match in INCLUDE.finditer(text):
            target = match.group(1)
            line = text.count("\n", 0, match.start()) + 1
            checked += 1
            if target not in tracked_set:
                neighbour = str(pathlib.PurePosixPath(path).parent / target)
                if neighbour not in tracked_set:
                    problems.append(f"{path}:{line}: \"{target}\" names no file from the repository root")
                continue
            theirs = folder_of(target, folders)
            if theirs is None or theirs == own or theirs in allowed[own] or "*" in allowed[own]:
                continue
            problems.append(f"{path}:{line}: {own}/ may not include {theirs}/ (\"{target}\"); "
                            f"docs/architecture.md, Layers: {own}/ may include "
                            f"{', '.join(sorted(f + '/' for f in allowed[own])) or 'nothing of the project'}")
    for problem in problems:
        print(problem)
    print(f"check-layers: {checked} includes in {len(allowed)} folders, {len(problems)} outside their layer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
