"""The deterministic follow-up rewrite used before documents are searched (wenshu.kb.followup)."""

from __future__ import annotations

import pytest

from wenshu.kb.followup import is_follow_up, rewrite


@pytest.mark.parametrize("question, earlier, expected", [
    ("那礼品卡余额呢？", ["银行卡退款多久到账？"], "银行卡退款多久到账？ 礼品卡余额"),
    ("重大事件呢？", ["发现数据泄露多久内要上报"], "发现数据泄露多久内要上报 重大事件"),
    ("What about first-tier cities?", ["How long does delivery to Xinjiang take?"],
     "How long does delivery to Xinjiang take? first-tier cities"),
    ("And elsewhere?", ["What is the hotel limit?"], "What is the hotel limit? elsewhere"),
    ("Does it apply to members?", ["Can I return opened items?"], "Can I return opened items? Does it apply to members"),
    # a chain of follow-ups keeps the topic of the last question that stood on its own
    ("那支付宝呢？", ["退款多久到账？", "那银行卡呢？"], "退款多久到账？ 支付宝"),
    # questions that stand on their own, or nothing before: searched as asked
    ("积分有效期多久？", ["银行卡退款多久到账？"], "积分有效期多久？"),
    ("How long is the probation period?", ["What are the core hours?"], "How long is the probation period?"),
    ("那退货呢？", [], "那退货呢？"),
    ("那退货呢？", ["那换货呢？"], "那退货呢？"),
])
def test_rewrite(question, earlier, expected):
    assert rewrite(question, earlier) == expected


def test_what_reads_as_a_follow_up():
    assert all(map(is_follow_up, ["那退货呢？", "还有呢", "what about for members?", "And the budget?", "这个要多久",
                                  "How about Chengdu?"]))
    assert not any(map(is_follow_up, ["退款多久到账", "How is the repurchase rate defined?", "", "   ",
                                      "Which documents mention the Chengdu warehouse capacity limits?"]))
