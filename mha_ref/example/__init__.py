"""The running example and what the pages compute from it.

toy.py is the example itself: six tokens, d_model = 8, four hand-built heads of width 2. one_head.py,
causal.py and reshape.py work it through (one head's blend, a causal mask, the reshape mistake);
rotary.py, tiles.py, mla_toy.py and windowed.py take it to page 8 (its position head with rotary
positions, one row computed tile by tile, latent attention on its tokens, a sliding window with sink
tokens).
scale.py and expressiveness.py are the two demonstrations that need a signal of their own rather
than the example's tokens: why each head divides by sqrt(d_k), and what a narrow head can still pick.
"""
