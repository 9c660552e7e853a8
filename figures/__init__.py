"""figures: the site's figures, drawn with matplotlib from numbers mha_ref computes, and what turns
them into pages and downloads. Content apart from machinery, in layers that only point down:

- keep/: keeping results on disk: the MHA_* switches, the caches' folders, files written whole and
  sealed, the digest of the code a result reaches, and page 4's model trained and measured once.
- numbers/: the registry of named numbers the pages print ({{ value NAME }}).
- gallery/: the figures themselves, one module per figure, its file name the figure's id; the
  ordered list of ids in gallery/__init__.py. Content only.
- kit/: what a figure may import: the shared look (style), the words helpers (words), the
  controls (control) and drawing helpers (draw).
- engine/: a figure becomes bytes: the registry of ids, drawing every frame in a pool (render),
  saving each format with its canvases (save, *_canvas), the dark variant, the figure cache and
  the digest of the code a frame is drawn from (sources, cache).
- text/: the page-construct language ({{ figure }}, {{ value }}, ...), a leaf that captions,
  downloads and pages share.
- publish/: what a reader takes away: the site's identity, each file's attribution stamped into
  it, the all-frames zips and CSV tables, provenance links, figure numbers.
- site/: MkDocs only: hooks.py delegates to one module per feature.

`python -m figures` (__main__.py) is the command line for maintainers and lecturers: it writes the
same files as the site's downloads. mha_ref < keep < numbers < kit, text < gallery < engine < publish < site
(tests/test_layers.py keeps it so).
"""
