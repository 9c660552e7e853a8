"""Results kept as JSON that only the named types are made from (to_json, from_json): what the disk
caches (figures/keep/disk.py) keep of a computed result that is not an array file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np


def to_json(value) -> str:
    """A result made of named tuples, tuples, lists, mappings (any keys), numpy arrays and scalars,
    strings, numbers and None, as JSON text that from_json() reads back to equal values: floats
    are written in full (Python's repr round-trips them), each container tagged with what it was."""
    return json.dumps(_encoded(value), separators=(",", ":"), allow_nan=True)


def _encoded(v):
    if isinstance(v, np.ndarray):
        return {"array": v.tolist(), "dtype": v.dtype.str, "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {"type": type(v).__name__, "fields": [_encoded(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [_encoded(x) for x in v]}
    if isinstance(v, list):
        return [_encoded(x) for x in v]
    if isinstance(v, Mapping):
        return {"map": [[_encoded(k), _encoded(x)] for k, x in v.items()]}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"to_json: cannot keep a {type(v).__name__}")


def from_json(text: str, types: Sequence[type]):
    """to_json's text back to its value; a named tuple must be of one of `types` (nothing else is
    made from the file), a mapping comes back as a dict. A file of another shape raises ValueError."""
    by_name = {t.__name__: t for t in types}

    def decoded(v):
        if isinstance(v, list):
            return [decoded(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "array" in v:
            return np.array(v["array"], dtype=np.dtype(v["dtype"])).reshape(v["shape"])
        if "tuple" in v:
            return tuple(decoded(x) for x in v["tuple"])
        if "map" in v:
            return {_hashable(decoded(k)): decoded(x) for k, x in v["map"]}
        if "type" in v:
            if v["type"] not in by_name:
                raise ValueError(f"a kept {v['type']!r}, not one of {sorted(by_name)}")
            return by_name[v["type"]](*(decoded(x) for x in v["fields"]))
        raise ValueError(f"an object with keys {sorted(v)}")
    return decoded(json.loads(text))


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k
