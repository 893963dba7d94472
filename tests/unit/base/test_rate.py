"""base/rate.py: the rate and time left every progress display shows, on a clock the test drives."""

from __future__ import annotations

import pytest

from searchapp.base.rate import EVIDENCE, MIN_SPAN_S, RECENT, RateEstimator, format_left, format_rate


def steady(est: RateEstimator, per_s: float, every_s: float, reports: int, t: float = 0.0, done: int = 0):
    """`reports` batches of per_s * every_s units, one every `every_s` seconds; returns (t, done) after."""
    step = int(per_s * every_s)
    for _ in range(reports):
        t += every_s
        done += step
        est.update(done, t)
    return t, done


def test_a_steady_rate_gives_the_exact_time_left():
    est = RateEstimator()
    est.update(0, 100.0)
    t, done = steady(est, 8.0, 4.0, 6, t=100.0)  # 32 passages every 4 s
    assert est.rate() == pytest.approx(8.0)
    assert est.left(1000, t) == pytest.approx((1000 - done) / 8.0)
    # between two batches it counts down instead of standing still
    assert est.left(1000, t + 3.0) == pytest.approx((1000 - done) / 8.0 - 3.0)
    assert est.left(done, t) == 0.0


def test_no_rate_before_enough_evidence():
    est = RateEstimator()
    est.update(0, 0.0)
    for i in range(1, EVIDENCE):  # too few reports, however far apart
        est.update(100 * i, 30.0 * i)
        assert est.rate() is None and est.left(10_000, 30.0 * i) is None
    est2 = RateEstimator()
    est2.update(0, 0.0)
    for i in range(1, 50):  # many reports, but all within the first few seconds
        est2.update(i, i * (MIN_SPAN_S - 1) / 50)
    assert est2.rate() is None
    est2.update(60, MIN_SPAN_S + 1)
    # from the newest report that still spans MIN_SPAN_S (the 5th, at 0.9 s), not the very first
    assert est2.rate() == pytest.approx((60 - 5) / (MIN_SPAN_S + 1 - 5 * (MIN_SPAN_S - 1) / 50))


def test_a_change_of_rate_is_followed_within_recent_reports():
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 8.0, 4.0, 20)
    t, done = steady(est, 2.0, 16.0, RECENT - 1, t, done)  # the machine got busy: 32 every 16 s
    assert est.rate() > 2.0  # the old rate still weighs
    t, done = steady(est, 2.0, 16.0, 1, t, done)
    assert est.rate() == pytest.approx(2.0)  # RECENT reports at the new rate: only the new rate


def test_reports_that_do_not_move_add_nothing_and_one_that_goes_back_starts_over():
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 8.0, 4.0, 5)
    for k in range(20):  # the window polls the same report ten times a second
        est.update(done, t + 0.1 * k)
    assert est.rate() == pytest.approx(8.0)
    est.update(5, t + 5)  # a new stage counts from 0 again
    assert est.rate() is None


def test_fast_reports_reach_back_to_span_the_minimum():
    est = RateEstimator()
    est.update(0, 0.0)
    steady(est, 100.0, 0.5, 40)  # a GPU: 50 units twice a second; RECENT reports span only 4 s
    assert est.rate() == pytest.approx(100.0)


def test_formats():
    assert format_rate(8.123) == "8.1/s" and format_rate(4469.0) == "4,469/s" and format_rate(1 / 60) == "0.017/s"
    assert format_left(44.6) == "45 s"
    assert format_left(12 * 60 + 10) == "12 min"
    assert format_left(3 * 3600 + 5 * 60) == "3 h 05 min"
