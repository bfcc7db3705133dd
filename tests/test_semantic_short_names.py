"""How Chinese speakers name the split they want, read against the demo's bundled model: a dimension by the last
character of its name after a split word (各区 for 大区, 每个市 for 城市; not 按时 "on time" nor 各区间 "ranges"), the
model's synonyms 平台 (channels) and 片区 (regions), 各 after a name and before a verb (新老客各下了多少单, not the
kind of values said before it), "什么" asking which member, and 全 before a name (全平台: the total, no split)."""

from __future__ import annotations

from demo_reading import MODEL, edited, grounded
from wenshu.semantic.mentions import read


def test_a_dimension_named_by_its_last_character_after_a_split_word():
    assert grounded("上个月各区的客单价").dimensions == ["region"]
    assert grounded("上个月各区卖了多少钱").dimensions == ["region"]
    assert grounded("上个月每个市的订单量和销售额").dimensions == ["city"]
    assert grounded("上个月华东区的销售额").dimensions == []  # the region's kind after its value: a filter
    assert read(MODEL, "上个月各区间的订单量").dimensions == []  # 区间 is a word of its own
    assert read(MODEL, "按时发货的订单有多少").dimensions == []  # 按时: on time
    assert grounded("上个月每类商品的销量").dimensions == ["product"]  # the product named after it


def test_a_follow_up_names_the_split_by_its_last_character():
    plan = edited({"measures": ["gmv"], "dimensions": ["channel"]}, "各区客单又是多少？")
    assert plan is not None and plan.measures == ["aov"] and "region" in plan.dimensions


def test_platforms_and_areas_are_the_models_channels_and_regions():
    assert grounded("上个月各平台的销售额").dimensions == ["channel"]
    assert grounded("上个月各个片区卖了多少钱").dimensions == ["region"]
    assert grounded("上个月全平台的销售额").dimensions == []  # all of them together
    assert grounded("上个月全渠道的销售额").dimensions == []


def test_each_after_a_name_and_before_a_verb_splits_by_it():
    assert grounded("上个月新老客各下了多少单").dimensions == ["customer_type"]
    assert grounded("上个月会员等级各有多少人下单").dimensions == ["member_level"]
    tiers = grounded("这个季度一线、新一线和其他城市各下了多少单")
    assert tiers.dimensions == ["city_tier"]  # the tiers said before 城市 are split, not the cities
    assert grounded("上个月渠道各品类的销售额").dimensions == ["category"]  # 各 before the next name


def test_what_before_a_name_asks_which_member():
    best = grounded("上个月什么渠道的销售额最高")
    assert best.dimensions == ["channel"] and best.order == "desc" and best.limit == 1
    assert grounded("上个月什么品类的退款率最高").limit == 1
    assert grounded("为什么上个月华东的销售额下降了").dimensions == []  # why, not which
