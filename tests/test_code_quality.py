"""Lint (ruff) and type checks (mypy on the public API) are part of the test suite."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name):
    exe = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if exe is None:
        pytest.fail(f"{name} is not installed: install the test extras (pip install '.[test]')")
    return exe


def test_ruff_finds_no_lint_errors():
    proc = subprocess.run([_tool("ruff"), "check", "src", "tests", "benchmarks", "examples"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_finds_no_type_errors_in_the_public_api():
    proc = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
