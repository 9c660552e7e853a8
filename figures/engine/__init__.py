"""A figure becomes bytes: registry.py finds a figure's module by id; render.py draws every frame
in pool.py's processes (each frame with a time limit, none outliving the build); save.py saves
each format through this package's canvases (svg_canvas, pdf_canvas, png_canvas) and dark.py
recolours the SVG for the slate scheme; sources.py names what a frame is drawn from and cache.py
keeps frames on disk under that name."""
