"""Packages whose bodies run on first use, in the learner's child (sandbox.main installs the finder).

openai.types and its sub-packages re-export, in __init__ files that do nothing else, hundreds of
pydantic models a graded run never touches: building them is half of `import openai`, which every
child from day07 on pays before the learner's file has loaded.
"""
import functools
import importlib
import importlib.abc
import importlib.machinery

# Their bodies run on first use instead.
LAZY_PACKAGES = ("openai.types",)


class LazyBodyFinder(importlib.abc.MetaPathFinder):
    """Finds a package under LAZY_PACKAGES as Python would, with a loader that leaves its body to
    the first name asked of it that it lacks: a submodule of that name is imported alone, any other
    name runs the body. As Python imports a module, under the package's import lock: two threads
    wait for one body, and a circular wait is Python's own (a partly run body, as in an import)."""

    def find_spec(self, fullname, path, target=None):
        if not any(fullname == name or fullname.startswith(name + ".") for name in LAZY_PACKAGES):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.submodule_search_locations is not None and \
                isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = LazyBody(spec.loader)
        return spec


class LazyBody(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader
        self.ran = False

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        # Kept once the body has run: a sub-package that `import openai` would have imported (by
        # way of another), the learner may use without importing it; here it is imported then.
        module.__getattr__ = functools.partial(self.first_use, module)

    def first_use(self, module, name):
        if not name.startswith("__") and _has_submodule(module, name):
            return importlib.import_module(f"{module.__name__}.{name}")
        from importlib import _bootstrap  # Python's import locks: _ModuleLockManager, _DeadlockError
        try:
            with _bootstrap._ModuleLockManager(module.__name__):
                if not self.ran:
                    self.ran = True
                    self.loader.exec_module(module)
        except _bootstrap._DeadlockError:  # another thread runs the body and waits on this one
            pass
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}") from None


def _has_submodule(module, name):
    try:
        return importlib.machinery.PathFinder.find_spec(f"{module.__name__}.{name}", module.__path__) is not None
    except (ImportError, ValueError):
        return False
