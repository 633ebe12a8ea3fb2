# SPDX-License-Identifier: MIT OR Apache-2.0
"""icbench on a labgrid lab: one plan on every board of an environment
file, every board's runs merged into one store (docs/labgrid.md)."""
from .builds import BuildError, Builds
from .lab import BoardError, BoardResult, BoardRun, run_lab, summary

__all__ = ["BuildError", "Builds", "BoardError", "BoardResult", "BoardRun", "run_lab", "summary"]
