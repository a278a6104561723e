import subprocess
import sys


def test_importing_the_core_and_cli_loads_no_qt_module():
    code = (
        "import sys, pkgutil, importlib, workbench.core as core, workbench.cli\n"
        "for m in pkgutil.iter_modules(core.__path__): importlib.import_module('workbench.core.' + m.name)\n"
        "qt = sorted(n for n in sys.modules if n.split('.')[0] in {'PySide6', 'shiboken6', 'pyqtgraph'})\n"
        "print(qt); sys.exit(1 if qt else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
