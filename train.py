"""Train a punter and a banker against each other, then evaluate them: a thin script over
``training.train_cli.main`` (also the console script ``siete-train``).

    python train.py                                   # configs/train/default.yaml
    python train.py --config configs/train/long.yaml  # the longer run, better play
    python train.py --resume runs/default-s0          # go on after an interruption
"""

import sys

from training.train_cli import main

if __name__ == "__main__":
    sys.exit(main())
