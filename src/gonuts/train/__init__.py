"""Self-play training of the ``neural`` bot's network on :mod:`gonuts.batch` (the ``train`` extra).

``python -m gonuts.train --iterations 300 --out runs/neural`` (or ``gonuts train``) runs PPO
(:mod:`gonuts.train.ppo`) and writes ``checkpoint.npz`` (at every evaluation), ``final.npz``,
``history.json`` and ``curve.png``. Copy ``final.npz`` to ``src/gonuts/bots/weights/neural.npz``
to ship it; playing needs NumPy only.
"""
