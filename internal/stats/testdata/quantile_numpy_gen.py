#!/usr/bin/env python3
"""Writes quantile_numpy.json: sorted samples, quantiles and numpy.quantile's answers.

TestQuantileNumpy checks stats.Quantile against every answer to the bit. Run from this
directory with a Python that has numpy (Debian's python3-numpy, 1.24 when written):

    /usr/bin/python3 quantile_numpy_gen.py > quantile_numpy.json
"""
import json
import random

import numpy as np

QS = [0, 1, 0.5, 0.25, 0.75, 0.025, 0.975, 0.05, 0.95, 0.005, 0.995, 0.0005, 0.9995,
      0.1, 0.9, 0.215, 0.785]


def sample(rng, n, kind):
    if kind == "fractions":  # resampled means of 0/1 scores over 37 records
        return [rng.randint(0, 37) / 37 for _ in range(n)]
    if kind == "uniform":
        return [rng.random() for _ in range(n)]
    if kind == "wide":  # signs and magnitudes far apart, to exercise the rounding
        return [rng.choice([-1, 1]) * rng.random() * 10 ** rng.randint(-6, 6) for _ in range(n)]
    raise ValueError(kind)


def main():
    rng = random.Random(20261202)
    cases = []
    sizes = [1, 2, 3, 4, 5, 7, 10, 20, 39, 40, 41, 99, 100, 101, 1000]
    for kind in ("fractions", "uniform", "wide"):
        for n in sizes + [rng.randint(2, 300) for _ in range(4)]:
            if kind == "wide" and n > 101:
                continue
            vals = sorted(sample(rng, n, kind))
            qs = QS + [rng.random() for _ in range(8)]
            want = [float(np.quantile(np.array(vals), q)) for q in qs]
            cases.append({"kind": kind, "values": vals, "q": qs, "want": want})
    json.dump({"numpy": np.__version__, "cases": cases}, __import__("sys").stdout)


if __name__ == "__main__":
    main()
