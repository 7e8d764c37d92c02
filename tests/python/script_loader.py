"""The helper scripts under scripts/ as modules, for their CPU tests: they are files run by path,
not an installed package, so each test loads its script from the checkout."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def script_path(name):
    return ROOT / "scripts" / f"{name}.py"


def load_script(name):
    """scripts/NAME.py, executed once as module NAME (its `if __name__ == "__main__"` part not run)."""
    spec = importlib.util.spec_from_file_location(name, script_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
