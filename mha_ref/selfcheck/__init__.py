"""A self-check for a learner's own multi-head attention: check.py compares it with test vectors
(mha_ref.vectors) stage by stage. check.py needs numpy only, so that the site can offer it as a single
downloadable script; `python -m mha_ref.selfcheck my_module.py` runs it in the repository on vectors
made afresh (__main__.py)."""

from .check import MISTAKES, STAGES, SIGNATURE, VECTORS, load_vectors, run

__all__ = ["MISTAKES", "SIGNATURE", "STAGES", "VECTORS", "load_vectors", "run"]
