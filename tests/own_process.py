"""A test body run in a Python process of its own: for the few tests whose arrays take most of a
gigabyte (the published widths), so that the memory goes back to the system when the body ends
and the suite's own process, which holds every checked frame, never carries it on top."""

import multiprocessing


def in_own_process(fn, *args):
    """fn(*args) in a fresh (spawned) process, which imports only fn's module; what fn returns, or
    its exception raised here (the child's traceback chained to it)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)
