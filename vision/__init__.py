"""boardsight's eyes: find the board in a photo and read every cell (see ARCHITECTURE.md)."""

import numpy  # noqa: F401  (loaded first: threadpoolctl limits only the BLAS it sees loaded)
from threadpoolctl import threadpool_limits

# The reader's matrix products are tiny (a few hundred glyphs by a few hundred features):
# BLAS threads only contend for the cores (7 ms instead of 0.07 ms a product on a busy
# machine), so vision keeps BLAS to one thread in its process: the reader runs on one core.
threadpool_limits(1, user_api="blas")
