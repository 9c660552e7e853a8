"""python -m mha_ref.selfcheck [--time-limit SECONDS] my_module.py [vectors.npz]: without a file, the
vectors made afresh."""

import sys

from mha_ref.selfcheck import check

if __name__ == "__main__":  # a child process of the check imports this module again: it must not run
    def made_afresh() -> bytes:
        from mha_ref import vectors
        return vectors.npz_bytes()

    sys.exit(check.main(vectors=made_afresh))
