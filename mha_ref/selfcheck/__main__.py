"""python -m mha_ref.selfcheck my_module.py [vectors.npz]: without a file, the vectors made afresh."""

import sys

from mha_ref import vectors
from mha_ref.selfcheck import check

sys.exit(check.main(vectors=None if len(sys.argv) > 2 else vectors.npz_bytes()))
