"""The PySide6 desktop application: widgets observe core values and call core functions.
May import every ``workbench.core`` layer and Qt, never ``cli``; computes no DP of its own."""
