"""A fixed identity for the tests that write it out (citations, download stamps): not the
checkout's pyproject.toml, which may change."""

from figures.publish.identity import Identity

ID = Identity(
    title={"zh": "多头注意力", "en": "Multi-head attention, explained"},
    authors=("mha-explained contributors",),
    version="1.2.0",
    release_date="2026-11-30",
    site_url="https://x.example/repo/",
    repository="https://github.com/o/r",
    source_link="{repository}/blob/v{version}/{path}#L{line}",
    code_licence="MIT",
    code_licence_url="https://opensource.org/license/mit",
    content_licence="CC-BY-4.0",
    content_licence_url="https://creativecommons.org/licenses/by/4.0/",
)
