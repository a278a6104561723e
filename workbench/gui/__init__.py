"""The PySide6 desktop application: widgets observe core values and call core functions."""
