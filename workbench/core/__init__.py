"""The Qt-free core, in folders that follow the flow: data → privacy → statistics → release → report.

Each package imports only from those before it (``tests/test_import_direction.py`` checks it);
``errors`` and ``real`` sit below them all. The app and the command line call the same functions.
"""
