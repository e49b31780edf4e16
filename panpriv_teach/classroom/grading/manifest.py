"""Before grading, check that the checker and library sources the grader loads are the
course's: every file of panpriv_teach/ (bytecode caches aside, which the grader never
reads: see boot.py) must match the manifest, and no other file may be there (a planted
module, or an extension module that Python would load before the .py beside it).

The manifest is the release's, when the course is a copy written by `make release`
(`.panpriv-release.json`, a SHA-256 per file), or else the last commit of a git checkout
(git's hash of each file under panpriv_teach/ at HEAD): edit the checkers, commit, then
grade, and the grades belong to a commit.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from panpriv_teach.classroom.release import MANIFEST

PACKAGE = "panpriv_teach"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_hash(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def expected(root: Path):
    """(what the manifest is, hash function, {path: hash} of the files under panpriv_teach/),
    or None when there is none."""
    release = root / MANIFEST
    if release.is_file():
        hashes = json.loads(release.read_text(encoding="utf-8")).get("sha256", {})
        return (f"the release manifest {MANIFEST}", sha256,
                {p: h for p, h in hashes.items() if p.startswith(PACKAGE + "/")})
    try:
        listing = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "HEAD", "--", PACKAGE],
                                 capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listing.returncode != 0:
        return None
    hashes = {}
    for line in listing.stdout.splitlines():
        info, _, path = line.partition("\t")
        hashes[path] = info.split()[2]
    return "the last commit (git HEAD)", _git_hash, hashes


def source_problems(root) -> list:
    """What differs between the files under root/panpriv_teach/ and the manifest ([] when
    they match), in words."""
    root = Path(root)
    found = expected(root)
    if found is None:
        return ["there is no manifest to check the course's sources against: grade in a git "
                f"checkout of the course or in a copy written by `make release` ({MANIFEST})"]
    what, hash_of, hashes = found
    present = sorted(p.relative_to(root).as_posix() for p in (root / PACKAGE).rglob("*")
                     if not p.is_dir() and "__pycache__" not in p.relative_to(root).parts)
    problems = []
    for path in present:
        if path not in hashes:
            problems.append(f"{path} is not in {what}")
        elif hash_of((root / path).read_bytes()) != hashes[path]:
            problems.append(f"{path} differs from {what}")
    problems += [f"{path} is in {what} but missing" for path in sorted(set(hashes) - set(present))]
    return problems
