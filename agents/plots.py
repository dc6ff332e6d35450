"""Figures: strategy maps side by side, learning curves, a tournament matrix (PNG files).

matplotlib is imported inside the functions (with the Agg backend), so this module imports
without it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

ANNOTATE_MAX = 120  # annotate a heatmap's cells when it has at most this many with data


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _grid(p: Any, n: Any, min_count: int) -> np.ma.MaskedArray:
    """A probability grid (nested lists, ``None`` = no data) masked where there is no data
    or fewer than ``min_count`` decisions."""
    arr = np.array([[np.nan if v is None else v for v in row] for row in p], np.float64)
    mask = np.isnan(arr)
    if n is not None:
        mask |= np.asarray(n) < min_count
    return np.ma.masked_array(arr, mask)


def _label(v: Any) -> str:
    if isinstance(v, str):
        return v
    if v == 0.5:
        return "½"
    if isinstance(v, float) and v != int(v):
        return f"{int(v)}½"
    return str(int(v))


def _has(grid: np.ma.MaskedArray) -> bool:
    return bool((~np.ma.getmaskarray(grid)).any())


def _heatmap(ax, grid: np.ma.MaskedArray, rows, cols, xlabel: str, ylabel: str, title: str, cmap):
    """Rows are drawn bottom-up (higher totals higher). Returns the image."""
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_facecolor("white")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([_label(c) for c in cols], fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_label(r) for r in rows], fontsize=7)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.set_xticks(np.arange(-0.5, len(cols)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.4)
    ax.tick_params(which="minor", length=0)
    filled = ~np.ma.getmaskarray(grid)
    if filled.sum() <= ANNOTATE_MAX:
        size = 7 if len(cols) <= 9 else 5.5
        for i, j in zip(*np.nonzero(filled), strict=True):
            v = float(grid[i, j])
            text = "1" if v >= 0.995 else ("0" if v <= 0.005 else f"{v:.2f}")
            r, g, b, _ = cmap(v)
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(j, i, text, ha="center", va="center", fontsize=size, color="white" if dark else "black")
    return im


def plot_strategy_maps(maps_by_agent: dict[str, dict], path: str, title: str = "", min_count: int = 5) -> str:
    """One PNG comparing agents' strategy maps (``StrategyRecorder.maps()`` per agent name).

    Rows of panels: stand vs hit, face-down choice, the banker's hit (by whether the punter
    hand holds a face-down card), then the stake and the raise frequency by first card /
    total as lines, one per agent. Cells with fewer than ``min_count`` decisions are blank;
    an agent with no decision of a kind is left out of that row."""
    plt = _plt()
    cmap = plt.get_cmap("RdYlBu").with_extremes(bad="white")

    heat_rows: list[tuple[str, list]] = []
    sh, fd, bk = [], [], []
    for name, m in maps_by_agent.items():
        s = m["stand_hit"]
        g = _grid(s["p_stand"], s["n"], min_count)
        if _has(g):
            sh.append((f"{name}\nP(stand)", g, s["rows"], s["cols"], s["col_label"], s["row_label"]))
        f = m["face_down"]
        g = _grid(f["p_down"], f["n"], min_count)
        if _has(g):
            fd.append((f"{name}\nP(hit face-down | hit)", g, f["rows"], f["cols"], f["col_label"], f["row_label"]))
        b = m["banker"]
        for key, what in (("face_down", "punter holds a face-down card"), ("face_up", "punter's cards all face-up")):
            g = _grid(b[f"p_hit_{key}"], b[f"n_{key}"], min_count)
            if _has(g):
                bk.append((f"{name}\nP(banker hits), {what}", g, b["rows"], b["cols"], b["col_label"], b["row_label"]))
    for label, panels in (("stand / hit", sh), ("face-down choice", fd), ("banker", bk)):
        if panels:
            heat_rows.append((label, panels))

    stake_lines = []
    raise_lines = []
    for name, m in maps_by_agent.items():
        st = m["stake"]
        n = np.asarray(st["n"])
        if n.sum() > 0:
            mean = [np.nan if v is None or c < min_count else v for v, c in zip(st["mean"], n, strict=True)]
            sw = st["swap_four"]
            label = name if not sw["n"] else f"{name} (swaps a 4: {sw['p']:.0%})"
            stake_lines.append((label, st["first_card"], mean))
        r = m["raise"]
        if sum(r["n"]) > 0:
            p = [np.nan if v is None or c < min_count else v for v, c in zip(r["p_raise"], r["n"], strict=True)]
            raise_lines.append((name, r["rows"], p))

    # Pack the kinds into figure rows: a kind with few agents shares a row with the next.
    ncols = max([len(p) for _, p in heat_rows] + [3])
    fig_rows: list[list] = []
    for _label_row, panels in heat_rows:
        if fig_rows and len(fig_rows[-1]) + len(panels) <= ncols:
            fig_rows[-1].extend(panels)
        else:
            fig_rows.append(list(panels))
    nrows = max(1, len(fig_rows) + (1 if stake_lines or raise_lines else 0))
    fig = plt.figure(figsize=(4.2 * ncols + 1.0, 3.6 * nrows), layout="constrained")
    gs = fig.add_gridspec(nrows, ncols)
    for i, panels in enumerate(fig_rows):
        axes = []
        im = None
        for j, (ttl, g, rows, cols, xl, yl) in enumerate(panels):
            ax = fig.add_subplot(gs[i, j])
            im = _heatmap(ax, g, rows, cols, xl, yl, ttl, cmap)
            axes.append(ax)
        fig.colorbar(im, ax=axes, shrink=0.85, label="probability", pad=0.01)
    if stake_lines or raise_lines:
        sub = gs[len(fig_rows), :].subgridspec(1, 2 if stake_lines and raise_lines else 1)
        k = 0
        if stake_lines:
            ax = fig.add_subplot(sub[0, k])
            k += 1
            for label, x, y in stake_lines:
                ax.plot(range(len(x)), y, marker="o", label=label)
            ax.set_xticks(range(len(stake_lines[0][1])))
            ax.set_xticklabels([_label(v) for v in stake_lines[0][1]])
            levels = [lv for m in maps_by_agent.values() for lv in m["stake"]["levels"]] or [1]
            ax.set_ylim(min(levels) - 0.25, max(levels) + 0.25)
            ax.set_xlabel("first card (value)", fontsize=8)
            ax.set_ylabel("mean stake", fontsize=8)
            ax.set_title("Initial stake by first card", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        if raise_lines:
            ax = fig.add_subplot(sub[0, k])
            for label, x, y in raise_lines:
                ax.plot(range(len(x)), y, marker="o", label=label)
            ax.set_xticks(range(len(raise_lines[0][1])))
            ax.set_xticklabels([_label(v) for v in raise_lines[0][1]], fontsize=7)
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlabel("own total", fontsize=8)
            ax.set_ylabel("P(raise) when a raise is legal", fontsize=8)
            ax.set_title("Raises by own total", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    if not heat_rows and not stake_lines and not raise_lines:
        ax = fig.add_subplot(gs[0, :])
        ax.text(0.5, 0.5, "no decisions recorded", ha="center", va="center")
        ax.axis("off")
    if title:
        fig.suptitle(title + (f"  (cells with < {min_count} decisions blank)" if min_count > 1 else ""), fontsize=11)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], np.float64)


def plot_learning_curves(curves: dict, path: str, title: str = "") -> str:
    """Lines over ``curves["generation"]`` for every other series (``name + "_ci"`` gives its
    95% half-widths as error bars); series whose names start with ``nash_conv`` go to a
    second panel (log scale when all positive). ``None`` values are gaps."""
    plt = _plt()
    gen = _floats(curves["generation"])
    series = [k for k in curves if k != "generation" and not k.endswith("_ci")]
    main = [k for k in series if not k.startswith("nash_conv")]
    nash = [k for k in series if k.startswith("nash_conv")]
    panels = [p for p in (main, nash) if p]
    if not panels:
        panels = [[]]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.2), layout="constrained", squeeze=False)
    for ax, keys in zip(axes[0], panels, strict=True):
        positive = True
        for k in keys:
            y = _floats(curves[k])
            x = gen[: len(y)]
            ci = curves.get(k + "_ci")
            if ci is not None:
                ax.errorbar(x, y, yerr=_floats(ci)[: len(y)], marker="o", markersize=3, capsize=3, label=k)
            else:
                ax.plot(x, y, marker="o", markersize=3, label=k)
            positive &= bool(np.all(y[~np.isnan(y)] > 0))
        if keys is nash:
            ax.set_ylabel("NashConv (chips per hand)")
            ax.set_title("Exploitability")
            if positive and keys:
                ax.set_yscale("log")
        else:
            ax.set_ylabel("mean chips per hand")
            ax.set_title("Evaluation")
            ax.axhline(0.0, color="grey", linewidth=0.8)
        ax.set_xlabel("generation")
        ax.grid(alpha=0.3)
        if keys:
            ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_nash_conv_time(runs: dict[str, tuple[Any, Any]], path: str, reference: dict | None = None,
                        reference_label: str = "reference DCFR", final: dict[str, tuple[float, float]] | None = None,
                        title: str = "") -> str:  # fmt: skip
    """NashConv (log scale) against wall-clock minutes: each run's ``(minutes, nash_conv)``
    points (``runs``: label -> the two sequences), each run's final pair as a star
    (``final``: label -> (minutes, nash_conv)), and the reference solver's history
    (``reference``: ``{"seconds": [...], "nash_conv": [...]}``) on the same axes."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.4), layout="constrained")
    for label, (minutes, nc) in runs.items():
        line = ax.plot(_floats(minutes), _floats(nc), marker="o", markersize=3, label=f"{label}: each measured pair")
        if final and label in final:
            m, v = final[label]
            ax.plot([m], [v], marker="*", markersize=12, color=line[0].get_color(), linestyle="none",
                    label=f"{label}: final pair {v:.4f}")  # fmt: skip
    if reference:
        ax.plot(_floats(reference["seconds"]) / 60, _floats(reference["nash_conv"]), color="black", linestyle="--",
                marker=".", label=reference_label)  # fmt: skip
    ax.set_yscale("log")
    ax.set_xlabel("wall-clock minutes")
    ax.set_ylabel("NashConv (chips per hand)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(title or "Exploitability against time")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _matrix(matrix: Any) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """(punters, bankers, mean, ci) from ``{"punters", "bankers", "mean", "ci"}`` (lists
    of rows, one per punter), ``Tournament.to_dict()`` or a ``Tournament``."""
    if hasattr(matrix, "to_dict"):
        matrix = matrix.to_dict()
    punters, bankers = list(matrix["punters"]), list(matrix["bankers"])
    if "matches" in matrix:
        mean = np.full((len(punters), len(bankers)), np.nan)
        ci = np.full_like(mean, np.nan)
        for r in matrix["matches"]:
            ps = r["punters"]
            p = ps[0] if isinstance(ps, list | tuple) else ps
            if p in punters and r["banker"] in bankers:
                i, j = punters.index(p), bankers.index(r["banker"])
                mean[i, j], ci[i, j] = r["punter"]["mean"], r["punter"]["ci95"]
        return punters, bankers, mean, ci
    mean = np.array([_floats(row) for row in matrix["mean"]])
    ci = np.array([_floats(row) for row in matrix["ci"]]) if "ci" in matrix else np.full_like(mean, np.nan)
    return punters, bankers, mean, ci


def plot_tournament(matrix: Any, path: str, title: str = "") -> str:
    """A punter × banker heatmap of the punter's mean chips per hand, annotated
    "mean ± ci". ``matrix``: ``{"punters": [...], "bankers": [...], "mean": [[...]],
    "ci": [[...]]}`` (row per punter), a ``Tournament`` or its ``to_dict()``."""
    plt = _plt()
    from matplotlib.colors import TwoSlopeNorm

    punters, bankers, mean, ci = _matrix(matrix)
    finite = mean[np.isfinite(mean)]
    lim = max(float(np.abs(finite).max()) if finite.size else 1.0, 1e-6)
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#eeeeee")
    w = 2.0 + 1.5 * len(bankers)
    h = 1.6 + 0.6 * len(punters)
    fig, ax = plt.subplots(figsize=(max(w, 5.0), max(h, 3.0)), layout="constrained")
    im = ax.imshow(
        np.ma.masked_invalid(mean), cmap=cmap, norm=TwoSlopeNorm(0.0, -lim, lim), aspect="auto", interpolation="nearest"
    )
    ax.set_xticks(range(len(bankers)))
    ax.set_xticklabels(bankers, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(punters)))
    ax.set_yticklabels(punters, fontsize=8)
    ax.set_xlabel("banker")
    ax.set_ylabel("punter")
    for i in range(len(punters)):
        for j in range(len(bankers)):
            if math.isfinite(mean[i, j]):
                text = f"{mean[i, j]:+.3f}"
                if math.isfinite(ci[i, j]):
                    text += f"\n± {ci[i, j]:.3f}"
                dark = abs(mean[i, j]) > 0.6 * lim
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label="punter's mean chips per hand")
    ax.set_title(title or "Punter's mean chips per hand (95% CI)", fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["plot_learning_curves", "plot_strategy_maps", "plot_tournament"]
