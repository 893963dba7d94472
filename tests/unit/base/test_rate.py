"""base/rate.py: the rate and time left every progress display shows, on a clock the test drives."""

from __future__ import annotations

import pytest

from searchapp.base.rate import (
    _NEWER_S,
    EARLY_SHARE,
    EARLY_SPAN_S,
    EVIDENCE,
    MIN_SPAN_S,
    RECENT,
    Estimate,
    RateEstimator,
    format_left,
    format_rate,
    left_words,
)


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
    # spanning MIN_SPAN_S now, and steady all along (5.6/s, then 5.4/s): the whole stretch since the first report
    assert est2.rate() == pytest.approx(60 / (MIN_SPAN_S + 1))


def test_a_steady_machine_gets_the_whole_stretch_s_pace_not_the_last_batches():
    """Batches of one size whose passages differ in length, at one pace: the newest RECENT reports alone misread
    it by 40 %; the steady stretch reads the whole stage."""
    est = RateEstimator()
    est.update(0, 0.0)
    t, done, seconds = 0.0, 0, [6.0] + [1.0] * 11  # 12 batches of 16 units in 17 s: 11.3/s
    for k in range(120):
        t += seconds[k % len(seconds)]
        done += 16
        est.update(done, t)
    assert done / t == pytest.approx(16 * 12 / 17)
    newest = 16 * RECENT / (t - est._points[-1 - RECENT][0])
    assert newest == pytest.approx(16.0)  # what the newest reports alone would say
    assert est.rate() == pytest.approx(done / t, rel=0.03)


def test_a_change_of_pace_after_a_long_steady_stretch_is_followed():
    """Ten minutes at 20/s, then another program takes a core: 12/s. Once the new pace has lasted _NEWER_S
    the stretch starts at the change."""
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 20.0, 2.0, 300)
    t, done = steady(est, 12.0, 2.0, RECENT, t, done)
    assert 12.0 < est.rate() < 20.0  # 16 s of a new pace: not yet a new pace
    t, done = steady(est, 12.0, 2.0, int(_NEWER_S / 2), t, done)
    assert est.rate() == pytest.approx(12.0)
    t, done = steady(est, 12.0, 2.0, 200, t, done)  # and stays with the new pace, however long it lasts
    assert est.rate() == pytest.approx(12.0)


def test_a_stall_of_two_batches_is_ridden_out():
    """Two batches that take minutes (the sync stepped aside, a burst of other work), then the old pace: the
    estimate keeps the whole stretch's pace instead of reading the stall as the new one (bench_time_left.py's
    trace of 2026-11-29: the newest reports alone said 1,130 s left where 380 s were)."""
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 4.0, 8.0, 100)
    before = est.rate()
    t, done = steady(est, 32 / 35, 35.0, 1, t, done)
    t, done = steady(est, 32 / 56, 56.0, 1, t, done)
    assert est.rate() == pytest.approx(done / t) and est.rate() > 0.9 * before
    t, done = steady(est, 4.0, 8.0, RECENT, t, done)
    assert est.rate() == pytest.approx(done / t)


def test_a_change_of_rate_is_followed_within_recent_reports():
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 8.0, 4.0, 20)
    t, done = steady(est, 2.0, 16.0, 2, t, done)  # the machine got busy: 32 every 16 s
    assert est.rate() > 2.0  # two slow batches prove nothing yet: the old rate still weighs
    t, done = steady(est, 2.0, 16.0, RECENT - 2, t, done)
    assert est.rate() == pytest.approx(2.0)  # RECENT reports (over _NEWER_S) at the new rate: only the new rate


def test_two_changes_of_pace_one_after_the_other_end_at_the_newest():
    """20/s, then another program for two minutes (12/s), then it stops (20/s again): the stretch starts at the
    second change, not the first."""
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 20.0, 2.0, 150)
    t, done = steady(est, 12.0, 2.0, 60, t, done)
    assert est.rate() == pytest.approx(12.0)
    t, done = steady(est, 20.0, 2.0, 60, t, done)
    assert est.rate() == pytest.approx(20.0)


def test_reports_that_come_at_one_instant_count_without_a_pace_of_their_own():
    """A burst of reports with the same time (a GPU's batches read at one poll): no stretch of no time is a pace,
    and the rate stays the whole run's."""
    est = RateEstimator()
    est.update(0, 0.0)
    t, done = steady(est, 10.0, 2.0, 40)
    for _ in range(RECENT + 2):
        done += 20
        est.update(done, t)
    t, done = steady(est, 10.0, 2.0, 40, t, done)
    assert est.rate() == pytest.approx(done / t)
    first = RateEstimator()  # the burst at the very start: the stretch before it has no time at all
    for k in range(RECENT + 2):
        first.update(20 * k, 0.0)
    t, done = steady(first, 10.0, 2.0, 60, 0.0, 20 * (RECENT + 1))
    assert first.rate() == pytest.approx(done / t)


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


def test_a_first_estimate_comes_after_a_few_seconds_and_percent_then_the_settled_one_unchanged():
    """A 45 s sync showed no time left until its last seconds (MIN_SPAN_S per stage): the strip and the command line
    give a first estimate once EVIDENCE batches after the first span EARLY_SPAN_S and did EARLY_SHARE of the stage,
    said as one; from MIN_SPAN_S on it is `rate`'s, as before (issue 41's accuracy after the first minute)."""
    est = RateEstimator()
    est.update(0, 0.0)
    est.update(10, 2.5)  # the first batch: the model warming up, ten times slower than the rest
    t, done = 2.5, 10
    while t < 2.5 + EARLY_SPAN_S - 1e-9:
        assert est.estimate(3000, t) is None, t  # too soon: a few batches' luck
        t, done = steady(est, 100.0, 0.5, 1, t, done)
    first = est.estimate(3000, t)  # 3 s after the first batch, 300 of 3,000 (10 %): the warm-up left out
    assert first == Estimate(pytest.approx(100.0), pytest.approx((3000 - done) / 100.0), True)
    assert est.rate() is None  # what `status` keeps (library/sync/meaning_rate.py) still waits for MIN_SPAN_S
    assert left_words(first) == "about 27 s left (first estimate)"
    assert est.estimate(1_000_000, t) is None  # 300 of a million: too small a share to say anything of it
    assert est.estimate(None, t) is None
    t, done = steady(est, 100.0, 0.5, 2 * int(MIN_SPAN_S), t, done)
    settled = est.estimate(3000, t + 0.2)
    assert settled == Estimate(est.rate(), est.left(3000, t + 0.2), False)
    assert left_words(settled) == f"about {format_left(settled.left)} left"
    slow = RateEstimator()  # one batch every 2 s: EVIDENCE of them after the first before any estimate
    slow.update(0, 0.0)
    t, done = steady(slow, 16.0, 2.0, EVIDENCE)
    assert slow.estimate(1000, t) is None and done - 32 >= EARLY_SHARE * 1000 and t - 2.0 >= EARLY_SPAN_S
    t, done = steady(slow, 16.0, 2.0, 1, t, done)
    assert slow.estimate(1000, t) == Estimate(16.0, (1000 - done) / 16.0, True)


def test_formats():
    assert format_rate(8.123) == "8.1/s" and format_rate(4469.0) == "4,469/s" and format_rate(1 / 60) == "0.017/s"
    assert format_left(44.6) == "45 s"
    assert format_left(12 * 60 + 10) == "12 min"
    assert format_left(3 * 3600 + 5 * 60) == "3 h 05 min"
