"""The offline copy's switches (figures/site/offline.py) on fake configs, files and a fake npm: no
build, no network. What the copy rewrites into pages (links to .html files, the search index as a
script) is Material's offline plugin turned on here, and language.split_search_index
(test_site_language.py); test_print_offline.py opens a built copy from disk."""

from __future__ import annotations

import errno
import io
import re
import subprocess
import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from figures.site import offline

ROOT = Path(__file__).resolve().parents[1]

SHIM_JS = b"/* iframe-worker shim */\nself.Worker = function () {};\n"


# ---- MHA_OFFLINE --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, on", [(None, False), ("", False), ("0", False), ("1", True)])
def test_only_mha_offline_1_asks_for_the_offline_copy(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("MHA_OFFLINE", raising=False)
    else:
        monkeypatch.setenv("MHA_OFFLINE", value)
    assert offline.wanted() is on


@pytest.mark.parametrize("value", ["yes", "true", " 1", "2", "on"])
def test_any_other_value_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("MHA_OFFLINE", value)
    with pytest.raises(PluginError) as e:
        offline.wanted()
    assert str(e.value) == f"MHA_OFFLINE={value!r}: set it to 1 for the offline copy, or to 0 or nothing"


# ---- the config: Material's offline plugin on, pages as files, our shim -----------------------------

class FakePlugins(dict):
    _current_plugin = None  # what File.generated reads


def fake_config(tmp_path, plugin_name="material/offline"):
    plugins = FakePlugins()
    if plugin_name:
        plugins[plugin_name] = SimpleNamespace(config=SimpleNamespace(enabled=False))
    return SimpleNamespace(plugins=plugins, use_directory_urls=True, extra={}, site_dir=str(tmp_path / "site"))


@pytest.mark.parametrize("plugin_name", ["material/offline", "offline"])
def test_offline_turns_the_plugin_on_pages_into_files_and_names_the_shim(monkeypatch, tmp_path, plugin_name):
    monkeypatch.setenv("MHA_OFFLINE", "1")
    config = fake_config(tmp_path, plugin_name)
    offline.configure(config)
    assert config.plugins[plugin_name].config.enabled is True
    assert config.use_directory_urls is False  # one-head-blends.html, not one-head-blends/
    assert config.extra == {"polyfills": ["assets/vendor/iframe-worker-shim.js"]}


def test_the_normal_build_leaves_the_config_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("MHA_OFFLINE", "0")
    config = fake_config(tmp_path)
    offline.configure(config)
    assert config.plugins["material/offline"].config.enabled is False
    assert config.use_directory_urls is True and config.extra == {}


def test_offline_without_the_plugin_in_mkdocs_yml_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("MHA_OFFLINE", "1")
    with pytest.raises(PluginError, match="MHA_OFFLINE=1, but mkdocs.yml lists no `offline` plugin"):
        offline.configure(fake_config(tmp_path, plugin_name=None))


def test_the_shim_is_a_site_file_in_the_offline_build_only(monkeypatch, tmp_path):
    shim = tmp_path / "kept" / "index.js"
    shim.parent.mkdir()
    shim.write_bytes(SHIM_JS)
    monkeypatch.setattr(offline, "shim_source", lambda: shim)
    config = fake_config(tmp_path)
    config.use_directory_urls = False

    monkeypatch.setenv("MHA_OFFLINE", "0")
    assert [f.src_uri for f in offline.add_shim(Files([]), config)] == []

    monkeypatch.setenv("MHA_OFFLINE", "1")
    files = offline.add_shim(Files([]), config)
    (f,) = list(files)
    assert f.src_uri == f.dest_uri == f.url == "assets/vendor/iframe-worker-shim.js"
    assert f.abs_src_path == str(shim)
    assert f.abs_dest_path == str(tmp_path / "site" / "assets" / "vendor" / "iframe-worker-shim.js")
    # a second call (or a shim the docs already hold) adds no second copy
    assert len(offline.add_shim(files, config)) == 1


def test_the_offline_copy_links_its_own_licence_files_not_their_hosts(monkeypatch, tmp_path):
    """Read from disk without network, the copy's footer linked creativecommons.org and
    opensource.org: it links the repository's licence files, copied to its root."""
    from figures.site import cite
    config = fake_config(tmp_path)
    config.use_directory_urls = False
    monkeypatch.setenv("MHA_OFFLINE", "0")
    assert list(offline.add_licences(Files([]), config)) == [] and offline.footer_root("en", "zh") is None
    assert 'href="https://creativecommons.org/licenses/by/4.0/"' in cite.footer("en", root=None)
    monkeypatch.setenv("MHA_OFFLINE", "1")
    files = {f.dest_uri: Path(f.abs_src_path).read_bytes() for f in offline.add_licences(Files([]), config)}
    assert files == {"LICENSE-CONTENT.txt": (ROOT / "LICENSE-CONTENT.md").read_bytes(),
                     "LICENSE.txt": (ROOT / "LICENSE").read_bytes()}
    for lang, root in (("zh", ""), ("en", "../")):  # zh's pages at the copy's root, en's in en/
        assert offline.footer_root(lang, "zh") == root
        links = re.findall(r'href="([^"]+)"', cite.footer(lang, root=root))
        assert links[:2] == [f"{root}LICENSE-CONTENT.txt", f"{root}LICENSE.txt"]
        assert all(not link.startswith("http") for link in links[:2])


def test_a_shim_in_the_docs_is_kept_and_nothing_fetched(monkeypatch, tmp_path):
    monkeypatch.setenv("MHA_OFFLINE", "1")
    monkeypatch.setattr(offline, "shim_source", lambda: pytest.fail("fetched a shim the docs hold"))
    config = fake_config(tmp_path)
    own = File("assets/vendor/iframe-worker-shim.js", str(tmp_path), config.site_dir, False)
    assert list(offline.add_shim(Files([own]), config)) == [own]


# ---- fetching the shim from npm, once ---------------------------------------------------------

def tarball(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class FakeNpm:
    """`npm pack SPEC --pack-destination DIR`: writes name-version.tgz into DIR (or fails)."""

    def __init__(self, members=None, returncode=0, stderr=""):
        self.members, self.returncode, self.stderr, self.calls = members, returncode, stderr, []

    def run(self, args, **kwargs):
        self.calls.append(args)
        assert kwargs.get("timeout") and kwargs.get("capture_output")
        npm, pack, spec, flag, dest = args
        assert (pack, flag) == ("pack", "--pack-destination")
        if self.members is not None:
            name, version = spec.rsplit("@", 1)
            name = name.lstrip("@").replace("/", "-")  # "@scope/name" is packed as scope-name-<version>.tgz
            (Path(dest) / f"{name}-{version}.tgz").write_bytes(tarball(self.members))
        return subprocess.CompletedProcess(args, self.returncode, "", self.stderr)


@pytest.fixture
def npm(monkeypatch):
    """A fake npm on the PATH; the test sets what it packs."""
    fake = FakeNpm()
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: "/fake/bin/npm" if name == "npm" else None))
    monkeypatch.setattr(offline, "subprocess", SimpleNamespace(run=fake.run))
    return fake


def test_the_file_is_fetched_once_with_npm_pack_and_kept(npm, tmp_path):
    npm.members = {"package/shim/index.js": SHIM_JS, "package/package.json": b"{}"}
    cache = tmp_path / "npm"
    kept = offline.npm_file("iframe-worker@1.0.4", "shim/index.js", cache)
    assert kept == cache / "iframe-worker-1.0.4" / "shim" / "index.js"
    assert kept.read_bytes() == SHIM_JS
    [[_, pack, spec, flag, dest]] = npm.calls
    assert [pack, spec, flag] == ["pack", "iframe-worker@1.0.4", "--pack-destination"]
    assert Path(dest).parent == cache and not Path(dest).exists()  # npm's own folder, gone after
    assert sorted(p.name for p in cache.iterdir()) == ["iframe-worker-1.0.4", "iframe-worker-1.0.4.tgz"]
    assert offline.npm_file("iframe-worker@1.0.4", "shim/index.js", cache) == kept
    assert len(npm.calls) == 1  # the second time from the cache: no npm, no network


def test_a_build_beside_never_sees_a_tarball_npm_is_still_writing(npm, tmp_path, monkeypatch):
    # CI's fresh clone: the suite's builds fetched the maths' font at once; one read the tarball
    # another npm was writing, found it cut short and dropped it, and that npm's build then failed
    npm.members = {"package/shim/index.js": SHIM_JS}
    real_run, seen = npm.run, []

    def slow(args, **kwargs):  # npm has written half the tarball when another build looks
        dest = Path(args[-1])
        whole = tarball(npm.members)
        (dest / "iframe-worker-1.0.4.tgz").write_bytes(whole[: len(whole) // 2])
        seen.append(sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")))
        return real_run(args, **kwargs)

    monkeypatch.setattr(offline, "subprocess", SimpleNamespace(run=slow))
    kept = offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    assert seen == [[]]  # under its name in the cache: nothing until npm is done
    assert kept.read_bytes() == SHIM_JS


def keep_tarball(cache: Path, members: dict[str, bytes]) -> Path:
    """The package's tarball in the cache, as `npm pack` left it there."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / "iframe-worker-1.0.4.tgz"
    path.write_bytes(tarball(members))
    return path


def test_a_kept_package_needs_no_npm(monkeypatch, tmp_path):
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: None))
    keep_tarball(tmp_path, {"package/shim/index.js": SHIM_JS})
    kept = tmp_path / "iframe-worker-1.0.4" / "shim" / "index.js"
    assert offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path) == kept
    assert kept.read_bytes() == SHIM_JS


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _crc_damaged(data: bytes) -> bytes:  # the last bytes (gzip's check), which tarfile alone never reads
    return data[:-8] + bytes([data[-8] ^ 1]) + data[-7:]


def _not_gzip(data: bytes) -> bytes:
    return b"<html>502 Bad Gateway</html>"


@pytest.mark.parametrize("damage, error", [(_truncated, "EOFError: Compressed file ended before the end-of-stream "
                                                        "marker was reached"),
                                           (_crc_damaged, "BadGzipFile: CRC check failed"),
                                           (_not_gzip, "BadGzipFile: Not a gzipped file (b'<h')")])
def test_a_damaged_tarball_is_dropped_with_a_warning_and_fetched_again(npm, tmp_path, caplog, damage, error):
    path = keep_tarball(tmp_path, {"package/shim/index.js": b"/* an older, damaged copy */"})
    path.write_bytes(damage(path.read_bytes()))
    npm.members = {"package/shim/index.js": SHIM_JS}
    kept = offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    assert kept.read_bytes() == SHIM_JS and len(npm.calls) == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"npm cache: {path} cannot be read ({error}): dropped, fetching it again"]


def test_a_damaged_tarball_from_npm_is_refused_by_name(npm, tmp_path, monkeypatch):
    npm.members = {"package/shim/index.js": SHIM_JS}
    real_run = npm.run

    def damaging(args, **kwargs):  # npm writes a tarball that is cut short
        done = real_run(args, **kwargs)
        path = Path(args[-1]) / "iframe-worker-1.0.4.tgz"
        path.write_bytes(path.read_bytes()[:20])
        return done

    monkeypatch.setattr(offline, "subprocess", SimpleNamespace(run=damaging))
    with pytest.raises(offline.NpmError) as e:
        offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    assert str(e.value) == (f"`npm pack iframe-worker@1.0.4` gave {tmp_path / 'iframe-worker-1.0.4.tgz'}, which "
                            "cannot be read (EOFError: Compressed file ended before the end-of-stream marker was "
                            "reached); run `npm cache verify`")
    assert not list(tmp_path.iterdir())  # nothing damaged left for the next build


def test_a_damaged_copy_of_the_file_is_written_again_from_its_package(monkeypatch, tmp_path, caplog):
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: None))
    keep_tarball(tmp_path, {"package/shim/index.js": SHIM_JS})
    kept = tmp_path / "iframe-worker-1.0.4" / "shim" / "index.js"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(SHIM_JS[:10])  # truncated
    assert offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path).read_bytes() == SHIM_JS
    assert [r.getMessage() for r in caplog.records] == [
        f"npm cache: {kept} differs from the file in its package: dropped, written again"]


def test_the_file_is_written_as_every_kept_file_is(npm, tmp_path, monkeypatch):
    npm.members = {"package/shim/index.js": SHIM_JS}
    written = []
    monkeypatch.setattr(offline.disk, "write_atomic", lambda path, data: written.append((path, data)))
    offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    assert written == [(tmp_path / "iframe-worker-1.0.4" / "shim" / "index.js", SHIM_JS)]


def test_a_cache_that_cannot_be_written_is_named(npm, tmp_path, monkeypatch):
    npm.members = {"package/shim/index.js": SHIM_JS}

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(offline.disk, "write_atomic", full)
    with pytest.raises(offline.NpmError) as e:
        offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    kept = tmp_path / "iframe-worker-1.0.4" / "shim" / "index.js"
    assert str(e.value) == f"cannot write {kept} (No space left on device): make {tmp_path} writable"


def test_without_npm_the_error_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: None))
    with pytest.raises(offline.NpmError) as e:
        offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path / "npm")
    assert str(e.value) == ("needs npm once, to fetch iframe-worker@1.0.4 from the npm registry: "
                            "install npm (apt-get install npm)")
    assert not (tmp_path / "npm").exists()


def test_a_failed_npm_pack_is_named_with_the_end_of_its_error(npm, tmp_path):
    npm.returncode, npm.stderr = 1, "x" * 1000 + "npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope\n"
    with pytest.raises(offline.NpmError) as e:
        offline.npm_file("nope@1.0.0", "a.js", tmp_path)
    message = str(e.value)
    assert message.startswith("`npm pack nope@1.0.0` failed: ")
    assert message.endswith("npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope")
    assert len(message) == len("`npm pack nope@1.0.0` failed: ") + 500  # the last 500 characters


def test_an_empty_member_is_refused_and_nothing_kept(npm, tmp_path):
    npm.members = {"package/shim/index.js": b""}
    with pytest.raises(offline.NpmError, match=r"iframe-worker-1\.0\.4\.tgz holds no package/shim/index\.js$"):
        offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)
    assert not (tmp_path / "iframe-worker-1.0.4").exists()


def test_a_package_without_the_member_is_an_npm_error(npm, tmp_path):
    npm.members = {"package/package.json": b"{}"}
    with pytest.raises(offline.NpmError, match="holds no package/shim/index.js"):
        offline.npm_file("iframe-worker@1.0.4", "shim/index.js", tmp_path)


def test_shim_source_turns_an_npm_error_into_the_builds_error(monkeypatch, tmp_path):
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: None))
    with pytest.raises(PluginError) as e:
        offline.shim_source(tmp_path)
    assert str(e.value) == ("MHA_OFFLINE=1 (search from file://): needs npm once, to fetch iframe-worker@1.0.4 "
                            "from the npm registry: install npm (apt-get install npm), and build again")


def test_shim_source_reads_the_pinned_package_from_its_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(offline, "shutil", SimpleNamespace(which=lambda name: pytest.fail("ran npm")))
    keep_tarball(tmp_path, {"package/shim/index.js": SHIM_JS})
    assert offline.shim_source(tmp_path).read_bytes() == SHIM_JS
