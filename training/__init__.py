"""The training product: what ``train.py`` and ``evaluate.py`` (thin scripts over
``training.train_cli.main`` and ``training.evaluate_cli.main``) run. Its modules:

* ``training.config``: the training config (``TrainConfig``, ``load_config``), validated;
  ``TrainConfig()`` is ``configs/train/default.yaml``, and a key of the deleted pools learner
  is refused (at its old default, as old run folders list it, it is read);
* ``training.train_cli``: ``python train.py`` (``siete-train``): its options, then the run
  and its report;
* ``training.driver``: the run driver, top-down: the generations through the learner, the
  state, the exact measures, the final pair;
* ``training.seam``: the learner seam (``Learner``: start, a generation's ``Snapshots``,
  stop; the driver's ``make_learner`` makes the learner);
* ``training.vine``: the vine learner: branched hands on the batched engine and
  ``VinePPO``'s all-actions mirror-descent loss;
* ``training.vine_run``: ``VineLearner``, the vine learner behind the seam: its two
  processes and a generation's iterations;
* ``training.learners``: a learner's model and the table giving it its spaces;
  ``model_args``, the one rule giving a learner its loss's arguments for a new run and a
  resumed one;
* ``training.runs``: a run folder: its state (``RunState``, ``state.json``), its lock, the
  specs of its final policies, atomic JSON files;
* ``training.outputs``: output files and folders checked before the work, written atomically;
* ``training.report``: round-robin tables and a run's report;
* ``training.evaluate_cli``: ``python evaluate.py`` (``siete-evaluate``): tournaments, exact
  values, solving, learned best responses, a run's report again;
* ``training.exploit``: learned best responses (``evaluate.py --exploit``);
* ``training.selection``: a pair's one-step gains, which choose the final pair of a run
  without an exact measure (``evaluation.select: one_step``);
* ``training.blas``: one BLAS thread per process, set before numpy loads (imported first by
  the driver and ``evaluate.py``);
* ``training.distill``: one banker network fitted to a mixture's banker;
* ``training.ship``: ``python -m training.ship``: a run's final pair shipped as the
  pretrained agents, with its exact values.

A package of the repository (beside the ``siete_env`` environment and the ``agents``), not
of the environment: it depends on both, and nothing in them depends on it. The research
probes of ``lab/`` and the speed benchmarks of ``benchmarks/`` import it; it imports neither.
"""
