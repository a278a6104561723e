"""DP Workbench: differentially private releases of tables, prepared offline."""

__version__ = "0.1.0"
