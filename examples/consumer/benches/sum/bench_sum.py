"""Benchmark driver: imports the project's src/ (the build context is the whole repository)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "src"))
from sumlib import sum_of_squares  # noqa: E402

for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
    sum_of_squares(int(sys.argv[1]))
