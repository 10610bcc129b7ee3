"""boardsight's eyes: find the board in a photo and read every cell (see ARCHITECTURE.md)."""

from threadpoolctl import threadpool_limits

# The reader's matrix products are tiny (a few hundred glyphs by a few hundred features):
# BLAS threads only contend for the cores (7 ms instead of 0.07 ms a product on a busy
# machine), so vision keeps BLAS to one thread in its process.
threadpool_limits(1, user_api="blas")
