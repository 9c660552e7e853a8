"""The MHA_* variables a build reads, each asked once when the build starts (hooks.on_config), so
that a value one does not take stops the build with one line naming it and the values it takes,
before anything is drawn. Each is still read where it is used, through figures.keep.switches' readers
(env_switch, env_seconds, env_folder) or its own module's check; check() only asks every one first.
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from ..keep import disk, switches, tiny_lm
from ..engine import pool
from ..publish import bundles, identity
from . import changes, offline, offline_reading

from ..publish.numbering import build_en  # MHA_BUILD_EN: read outside MkDocs (the CLI) the same way


def _previous_release() -> None:
    if switches.env_text(changes.PREVIOUS_ENV):  # unset: the tags decide, when the changes page asks
        changes.previous_release()


READERS = (disk.cache_folder, pool.limit_from_env, bundles.downloads_on, build_en,
           identity.require_real_site_url, identity.load, offline.wanted, offline_reading.offline_zip,
           _previous_release, tiny_lm.training_refused)


def check() -> None:
    """Read every variable the build reads; the first value refused raises PluginError, one line."""
    for read in READERS:
        try:
            read()
        except (ValueError, changes.ChangesError) as e:  # switches.EnvError, identity.IdentityError, ...
            raise PluginError(str(e)) from None
