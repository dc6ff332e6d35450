"""What ``train.py`` and ``evaluate.py`` share, so that neither imports the other:

* ``training.config``: the training config (``TrainConfig``, ``load_config``), validated;
* ``training.runs``: a run folder: its state (``RunState``, ``state.json``), its lock, the
  specs of its final policies, atomic JSON files;
* ``training.report``: round-robin tables and a run's report.

A package of the repository (beside the ``siete_env`` environment and the ``agents``), not
of the environment: it depends on both, nothing depends on it but the two scripts.
"""
