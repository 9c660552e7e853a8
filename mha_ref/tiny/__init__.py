"""Page 4's model: heads that training shaped rather than a hand, measured as the papers measure heads.

language.py generates the language (every sentence with its dependency arcs), lm.py is the masked
language model and its gradients, lm_train.py trains one model per seed deterministically and keeps
the weights on disk. voita.py and importance.py take any model's maps and gate callables: heads
measured strictly as Voita et al. measure them, Michel et al.'s importance and pruning curves;
lm_heads.py applies them to every seed.
"""
