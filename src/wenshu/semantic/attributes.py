"""The attributes a question asks to see beside each member of a split: "上个月消费超过5000元的客户有哪些？列出姓名和
会员等级", "which customers spent over 3,000 last month? name, member level and total". A dimension the question
names (not as a filter) that lives on the same table as a member the plan splits by, where that member has a key
of its own (a customer, not a city), is one value per member: it joins the split, so the answer shows it on each
member's row without repeating or merging members. A dimension of another table (the customer's city, reached
from the orders as the delivery city) is not an attribute: its path from the measure is not the member's, unless
the question routes it through the member's own lookup (`via`: "所在城市", "the city they live in")."""

from __future__ import annotations

from wenshu.semantic.model import SemanticModel

MAX_SPLIT = 3  # the member and two of its attributes


def attributes(model: SemanticModel, split: list[str], named: list[str], filtered: set[str],
               via: list[str] = ()) -> list[str]:
    """The named dimensions to show beside each member of `split` (dimension ids), in the question's order."""
    dims = {d.id: d for d in model.dimensions}
    tables = {dims[d].table.lower() for d in split if d in dims and dims[d].key}
    tables |= {r.ends()[1][0].lower() for r in model.relationships
               if r.from_ in via and r.ends()[0][0].lower() in tables}  # 所在城市: the customer's own
    out = [d for d in dict.fromkeys(named) if d in dims and d not in split and d not in filtered
           and dims[d].kind == "category" and not dims[d].part and dims[d].table.lower() in tables]
    return out[:max(0, MAX_SPLIT - len(split))]
