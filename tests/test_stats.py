"""The chi-square survival function the sampling tests rely on, against closed forms and published tables."""

from __future__ import annotations

import math

import pytest

from tests.stats import chi2_sf


def test_chi2_sf_against_closed_forms_and_the_table() -> None:
    for x in (0.5, 1.0, 3.841458820694124, 10.0, 23.928, 40.0, 80.0):
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)  # df 1: erfc
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)  # df 2: exp
        df3 = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
        assert chi2_sf(x, 3) == pytest.approx(df3, rel=1e-9)
    # Upper-tail 0.001 critical values from the NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4.
    for df, critical in [(4, 18.467), (10, 29.588), (16, 39.252)]:
        assert chi2_sf(critical, df) == pytest.approx(0.001, rel=1e-3)
