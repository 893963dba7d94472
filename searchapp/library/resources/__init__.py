"""What an open library holds, and its steps share: the data dir, the one-writer lock and the turns beside it,
read-only connections, the vector index's lifecycle, the models, the searches in flight a sync steps aside for,
one BLAS thread for many small products. The lowest sub-package of library/ but members/ (the order:
tests/unit/test_architecture.py)."""
