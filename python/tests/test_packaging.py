"""The reading side's dependencies: declared in pyproject.toml, pinned in constraints.txt, and the
venv that runs these tests holds the pinned versions (another matplotlib or pandas can draw or read
differently, so the figures and tables would drift between machines)."""
import importlib.metadata as metadata
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def pins():
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            out[name.strip().lower()] = version.strip()
    return out


def declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    return [re.split(r"[<>=!~ \[;]", r, maxsplit=1)[0].lower() for r in requirements]


def test_every_declared_dependency_is_pinned():
    assert set(declared()) == {"pandas", "matplotlib", "markdown-it-py", "pytest", "jsonschema"}
    missing = [name for name in declared() if name not in pins()]
    assert not missing, f"declared in pyproject.toml but not pinned in constraints.txt: {missing}"


def test_the_venv_holds_the_pinned_versions():
    wrong = {}
    for name, version in pins().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        if installed != version:
            wrong[name] = f"{installed}, pinned {version}"
    assert not wrong, f"run scripts/setup.sh: {wrong}"
