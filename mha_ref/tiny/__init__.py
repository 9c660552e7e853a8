"""Page 4's model: heads that training shaped rather than a hand, measured as the papers measure heads.

language.py generates the language (every sentence with its dependency arcs), lm.py is the masked
language model (its gradients in lm_backward.py), lm_train.py trains one model per seed
deterministically; arithmetic.py pins the kernels training and measuring run with, so that every
x86-64 machine with AVX2 gets the same weights. voita.py and importance.py take any model's maps and gate callables: heads
measured strictly as Voita et al. measure them, Michel et al.'s importance and pruning curves;
lm_heads.py applies them to one seed's model and reads what holds over the seeds, lm_table.py
prints a seed, lm_findings.py reads further. Nothing here keeps a result: the site keeps the
weights and measurements on disk (figures/keep/tiny_lm.py).
"""
