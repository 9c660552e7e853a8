"""What a figure module may import besides mha_ref: the shared look and the figure every drawing
starts from (style.py), the words helpers and languages (words.py), the control that steps a
figure's frames (control.py), drawing helpers that take an Axes and return what they drew
(draw.py), and what a figure says besides its drawing: data-table rows and the slider's readout
(readouts.py). Nothing here saves or caches: that is the engine's."""
