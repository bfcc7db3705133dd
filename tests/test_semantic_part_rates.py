"""A share of rows that ended in a state, asked of a whole ("what share of orders paid for got refunded"), is the
semantic model's rate over those states (refund rate, cancellation rate), read from the ratios' own filters; the
state said as the whole ("cancelled orders … from each channel") stays a share of a total. Questions written
here, read on the demo's bundled model."""

from __future__ import annotations

import pytest

from demo_reading import planned


@pytest.mark.parametrize("question,rate,split", [
    ("Over the last two months, what share of the orders paid for got refunded, channel by channel?", "refund_rate", "channel"),
    ("Last quarter, what percentage of orders were cancelled in each region?", "cancel_rate", "region"),
    ("上个月各渠道已付款订单中退款的比例", "refund_rate", "channel"),
])  # fmt: skip
def test_a_share_of_a_whole_that_ended_in_a_state_is_the_models_rate(question, rate, split):
    plan = planned(question)
    assert plan.measures == [rate] and plan.dimensions == [split] and not plan.share
    assert not plan.filters  # the states are the rate's own: no filter on the status left


@pytest.mark.parametrize("question,measure", [
    ("What share of refunded orders came from each region last month?", "refunded_orders"),
    ("上周被取消的订单里，各大区分别占几成", "cancelled_orders"),
])  # fmt: skip
def test_the_state_said_as_the_whole_stays_a_share_of_its_total(question, measure):
    plan = planned(question)
    assert plan.measures == [measure] and plan.share and plan.dimensions == ["region"]
