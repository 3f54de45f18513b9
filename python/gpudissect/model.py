"""The machine model `gpudissect export --format model` writes (schemas/model.schema.json): one
JSON document per run, read here as a dict after checking it is one this package understands."""
from __future__ import annotations

from .frames import read_json

KIND = "gpudissect-machine-model"
VERSION = 1


def load_model(path) -> dict:
    """The model document at `path` (gzip-compressed or not). ValueError, naming the file, when it
    is not a machine model or has a version this package does not read."""
    doc = read_json(path, "model file")
    if not isinstance(doc, dict) or doc.get("kind") != KIND:
        raise ValueError(f"{path}: not a gpudissect machine model (kind is not {KIND!r})")
    if doc.get("version") != VERSION:
        raise ValueError(f"{path}: model version {doc.get('version')!r}; this package reads {VERSION}")
    return doc
