"""DP Workbench's benchmarks: every number next to a baseline measured in the same run.

``python -m benchmarks`` runs them all and prints one table of ratios (``--quick``: a smaller
table and fewer repeats, about two minutes). Each module also runs on its own.
"""
