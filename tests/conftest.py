"""Fixtures shared by the test modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REAL = Path(__file__).parents[1].parent / "shared" / "real" / "mathable"
"""Real phone photos of a physical Mathable set, with truth (read-only, beside the repo)."""


@pytest.fixture(scope="session")
def real_truth() -> dict:
    """The truth of the real Mathable photos: {photo name: the `boardsight read` shape}."""
    if not (REAL / "truth.json").exists():
        pytest.skip("../shared/real/mathable is not here")
    return json.loads((REAL / "truth.json").read_text())["photos"]
