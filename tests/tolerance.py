"""How close two computed floats must be to count as equal: decided once, here.

The same value computed twice does not always round the same way. The exact evaluator's
kernels are compiled by numba for the processor they run on (``NUMBA_CPU_NAME=generic``
gives another build: no FMA, other vector widths), numba's parallel loops split their sums
by the number of threads, BLAS and torch pick a kernel per processor, and the learned
policies' probabilities and the banker tables are float32. So two computations of one value
(on two machines, or by two implementations on one machine) agree to a tolerance, never to
the bit, and every test comparing floats computed through compiled kernels, BLAS or torch
uses one of these:

``FLOAT64``
    Values computed in float64 throughout: exact expected values, best responses and
    NashConv of tabular or heuristic policies, the kernels against their numpy passes,
    means of chips. They are chips per hand (order 1 to 10) summed over at most ~10⁸
    terms: a different summation order moves them by far less than 1e-9 (measured: at most
    ~1e-13 between the host build and ``NUMBA_CPU_NAME=generic``).

``FLOAT32``
    Values that pass through float32 numbers: a network's probabilities (a numpy or torch
    forward pass, BLAS), float32 banker tables. float32 rounds at 6e-8 relative, and the
    values weigh those probabilities by stakes up to 5 over many states: 1e-6 holds with a
    margin (measured: 6e-9 between the host build and ``NUMBA_CPU_NAME=generic`` for the
    pretrained pair's NashConv).

``PROBS``
    A float32 probability computed by two implementations (torch against numpy, the
    compiled layers against BLAS): float32 rounding through a few layers, 1e-5 holds.

A figure stored in a file and compared with a recomputation (the shipped agents' exact
values, ``agents/pretrained/*.json``) is stated to 6 decimals, the digits that hold on every
machine: ``STATED`` allows its rounding plus the recomputation's spread.
"""

from __future__ import annotations

FLOAT64 = 1e-9
FLOAT32 = 1e-6
PROBS = 1e-5
STATED = 0.5e-6 + FLOAT32  # a figure stated to 6 decimals: its rounding plus the recomputation's spread
