#!/usr/bin/env python3
"""Checks that the docs point at things that exist: every relative Markdown link of README.md,
docs/*.md and the READMEs under results/ (its file, and its #anchor as GitHub spells headings),
and every repository path the same files name in the text (`simulator/closed_form.hpp`,
`results/gpu/2026-12-04/`, `tests/hardening_*.cmake`: a glob must match something). Paths under
build/ and placeholders (DATE, OUT, N, ...) are not checked.
Usage: python3 scripts/check-doc-paths.py   (exit 1 and one line per broken reference)
"""
import glob
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOP = ("README.md", "CMakeLists.txt", "CMakePresets.json", "bench", "calibration", "cli", "cmake",
       "collectives", "docs", "fuzz", "io", "plotting", "results", "scripts", "simulator", "tests",
       "topology", "training_harness", "report", "workload")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(t) for t in TOP if "." not in t)
                  + r")/[A-Za-z0-9_.*{},/-]*[A-Za-z0-9_*}/])")
PLACEHOLDER = re.compile(r"(DATE|OUT|OUTDIR|NAME|TYPE|OP|FILE|DIR|ALGO|<|\.\.\.|N\b|nN|rR)")


def slug(heading):
    """A Markdown heading as GitHub's anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    return {slug(line.lstrip("#")) for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#") and not line.startswith("#!")}


def expand(pattern):
    """Brace alternatives {a,b} expanded, then globbed from the repository root."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match:
        return [hit for option in match.group(1).split(",")
                for hit in expand(pattern[:match.start()] + option + pattern[match.end():])]
    return glob.glob(str(ROOT / pattern))


def problems_of(doc):
    text = doc.read_text(encoding="utf-8")
    found = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (doc.parent / file_part).resolve() if file_part else doc
        if not resolved.exists():
            found.append(f"{doc.relative_to(ROOT)}: link to a missing file: {target}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            found.append(f"{doc.relative_to(ROOT)}: link to a missing heading: {target}")
    for path in PATH.findall(LINK.sub("", text)):
        if PLACEHOLDER.search(path):
            continue
        if not expand(path.rstrip("/")):
            found.append(f"{doc.relative_to(ROOT)}: names a missing path: {path}")
    return found


def main():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "results").rglob("README.md"))]
    found = [problem for doc in docs for problem in problems_of(doc)]
    for problem in found:
        print(problem)
    print(f"check-doc-paths: {len(docs)} files, {len(found)} broken reference(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
