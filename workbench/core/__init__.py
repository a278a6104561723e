"""The Qt-free core: every step from file to released numbers is a plain function here.

Nothing in this package imports Qt; the GUI and the command line call the same functions.
"""
