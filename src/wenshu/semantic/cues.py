"""The operator words of the languages themselves, never a question set's: Chinese and English words for a
trend, 同比 / 环比, a share, a rank and its direction, a list, a count, a comparison of values side by side, and
the split words before a dimension's name. `semantic.mentions` reads a question with them.
"""

from __future__ import annotations

import re

from wenshu.semantic import phrasing
from wenshu.knowledge.compiled import rx

NUM = r"(\d+|[一二两三四五六七八九十]{1,3})"
NOT_PERIOD = phrasing.CJK_NOT_PERIOD  # 前一个月, 一个季度: a period, not a count of members
COUNTED = r"\s*(名|个|大|家|款|位|座|笔|条|单)" + NOT_PERIOD  # 5个城市, 10笔退款, not 一个月
EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
      "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20}
EN_NUM = r"(\d+|" + "|".join(EN) + r")"
# what grew or fell, said between the verb and "the most": "grew their revenue", "dropped in revenue", "rose GMV"
_WHAT_CHANGED = r"( (in |on |by |of )?(their |its )?(?!the\b|most\b|and\b|but\b)[\w-]+( (?!the\b|most\b)[\w-]+)?)?"
# a number asked in percent ("in %", "as a percentage"): a share, or with a comparison the change in percent
IN_PERCENT = r"\bas (a )?percentages?\b|\b(as|in) (an? )?%|\b(in|as) percent(age)?( terms)?\b"
CUES = {
    "trend": r"趋势|走势|变化趋势|trend|over time",
    "yoy": r"同比|去年同一?个?(期|月|季度|周|星期|天|日|时期|时段)|去年同样的?(这|那)?(几|些)?(天|日|时间|时期|时段|周|月)|上年同期|去年的同一|year[- ](over|on)[- ]year|\byoy\b"
           r"|(same|equivalent|comparable|corresponding|matching) (period|day|week|month|quarter|time|point|stretch|days|dates)"
           r" (of |in )?(last|the (previous|prior)) year"
           r"|\b(a|one) year (ago|earlier|before)|\bthe year before\b(?! last)|\b(vs\.?|versus|against|compared (to|with)|than) (this|that|the same) time (last|a) year\b|\b(twelve|12) months (ago|earlier|before)\b|\b(with|to|against|than|vs\.?|versus) (the same \w+ )?(last year|ly)\b",
    # the same days a week before: "yesterday vs the same day last week", 昨天和上周同一天比, week over week
    "week": r"上周同一?(天|日|时段)|上周的同一(天|时段)|上个?星期同一?(天|日)|上周同期|上周同日"
            r"|(same|equivalent|comparable|corresponding) (day|days|weekday|period|time) (of |in )?last week"
            r"|\b(a|one) week (ago|earlier|before)\b|\bwow\b|\bweek[- ](over|on)[- ]week\b",
    "previous": r"环比|上期|上一期|比起?上|较上|相比上|比起?前一|较前一|前一(周|个?月|天|日|季度|年)相比|previous period"
                r"|上(个?月|周|星期|季度)同期|上(个?月|季度)(的)?同一?时段"
                r"|compar\w*\b.{0,40}\b(with|to|against)\s+(the\s+)?same (days?|period|time) (of |in )?(last|the (previous|prior)) (week|month|quarter)"
                r"|(和|与|跟|同|对比)(上个?月|上周|上星期|上季度|上一?年|昨天|前一?天|上期|[前上]一(周|个?星期|个?月|个?季度|年))(相?比|对比)"
                r"|compar\w*\b.{0,40}\b(with|to|against)\s+(the\s+)?(last|previous|prior)\s+(day|week|month|quarter|year|period)"
                r"|\b(vs\.?|versus|next to|beside|alongside)\s+(the\s+)?(last|previous|prior)\s+(day|week|month|quarter|year|period)"
                r"|period[- ]over[- ]period|(day|week|month|quarter)[- ](over|on)[- ](day|week|month|quarter)"
                r"|\b(mom|wow|qoq|dod)\b"
                r"|\b(against|than|vs\.?|versus|to|with) the same (point|time|days?|period|stage) (of |in )?last (week|month|quarter)\b"
                r"|(than|versus|vs\.?|compared (to|with)|against|with) the (week|month|day|quarter|year) (before|prior)"
                r"|\b(up|down|rise|rose|grow|grew|change|changed|increase|decrease|fall|fell|drop|dropped)\b.{0,15}\bfrom the"
                r" (week|month|day|quarter|year) (before|prior)"
                r"|(比起?|较|相比|和|跟|与|同|对比)(它|其)?(前面|之前|前头)的?那?一?个?(周|星期|月|天|日|季度|年)"  # 比起它前面那个月
                r"|比再前|(比|和|跟|与|同|较)再往?前一个?(周|星期|月|天|日|季度|年)|再往?前一个?(周|星期|月|天|日|季度|年)的?(相?比|对比)"
                r"|(vs\.?|versus)\s*(上个?月|上周|上星期|上季度|昨天|前一天|上期|[前上]一(周|个?星期|个?月|个?季度|年|天))"
                r"|\b(vs\.?|versus|against|than|compared (to|with))\s+last\b(?!\s*[a-z0-9])"  # "this month vs last?"
                r"|\bthe (?:[\w-]+ )?(?:days?|weeks?|months?|quarters?|years?|period) (?:before|prior to) (?:that|it|this|then)"
                r"\s+(?:alongside|side by side|next to it|beside it)\b"  # "put the four weeks before that alongside"
                r"|\b(?:the )?(?:%|percent(?:age)?) change\b",  # ("and the week before that?" moves the window)
    "share": r"占比|份额|比重|构成|占.{0,12}(比例|百分比|百分之几|几成)|的(比例|百分比)(?!是?多少钱)|占[^，。？,.?多少]{0,6}多少(?!钱|人|位|单|笔|件|个|次)|\bshares?\b|percentage of|proportion|(?<!\bby )what percent"
             r"|\bwhat % of\b|% of (the )?total|\b(how big|how large|what) (a )?(slice|chunk|portion)\b|\b(slice|portion) of\b"
             r"|" + IN_PERCENT + r"|\bpercentage (split|breakdown|mix)\b|\b(divided|shared out|apportioned) (up )?(among|between|across)\b"
             r"|\b(and|with|plus) (the |a |their |its )?percent(age)?s?\b(?! (change|growth|increase|decrease|drop|rise))"
             r"|\b(each|every) \w+(?:'s|’s) (percentage|percent|share|fraction)\b|\bwhat fraction\b|\bfraction of\b"
             r"|\bslices?\b|\baccount(s|ed)? for\b|\bcontribut(e|es|ed|ion|ions)\b|\bmix\b|\bmakes? up\b"
             r"|\bhow much of (\S+\s+){0,4}?(was|were|is|are|came from|comes? from)\b",
    "rank": r"前\s*" + NUM + r"\s*(名|个|位|家|款|大|的|是|$)" + NOT_PERIOD + "|(?<!平均)(?<![每同某任这那])" + NUM + COUNTED
            + r"|top\s*\d+|bottom\s*\d+|最(高|低|多|少|大|小|好|差|畅销|热销|受欢迎)"
            r"|\b(?:which|what)\s+(?!one\b)" + EN_NUM + r"\s+(?!of\b)[a-z]"  # "which 5 brands lead on revenue": a top N
            r"|排名|排行|垫底|拖后腿|(?<!at )\bmost(?! recent\b)|(?<!at )\b(highest|lowest|least|fewest|top|bottom|rank|ranked|best|worst|largest|smallest"
            r"|biggest|strongest|weakest|thinnest|slimmest|poorest|cheapest|top-selling|best-selling)\b",  # "at least one": a condition
    # every member ranked, none cut ("Rank all of them", "give me all three, best first", 全部排一下)
    "every_ranked": r"\brank(ed)? (them |all of them |every \w+ )?all\b|\b(rank|list|show|give me) (them )?all\b"
                    r"|\ball of them\b|\bthem all\b|\ball (two|three|four|five|six|seven|eight|nine|ten|\d+)\b"
                    r"|(全部|全都|都)(排|列)(一下|出来|个序)",
    # an order said without a cut: "highest first", 从高到低 (every member, sorted)
    "ordered": r"从(高|大|多)到(低|小|少)|从(低|小|少)到(高|大|多)|降序|升序|\b(descending|ascending)\b"
               r"|按[^，。？！,.?!\s]{1,8}?来?排(序|列|一下|个序)?(?=$|[，。？！,.?!\s的吧呢])"
               r"|\b(sort|sorted|order|ordered|rank|ranked) (it |them |that |those |the [\w-]+ ([\w-]+ )?)?by\b"
               r"|\b(highest|largest|biggest|most|lowest|smallest|least|fewest|cheapest|priciest|(most|least) expensive"
               r"|best|worst)"
               r"\s+(first|on top|at the top)\b",
    "ascending": r"最(低|少|小|差)|倒数|垫底|拖后腿|排名靠后|从(低|小|少)到(高|大|多)|升序|\bascending\b|后\s*" + NUM + r"\s*(名|个|位|家|款|的)"
                 r"|\b(lowest|(?<!at )least|fewest|bottom|smallest|worst|weakest|thinnest|slimmest|poorest|cheapest)\b",
    # ranked by how much a measure changed, not by its size: a fall ranks the largest fall first, a rise the largest
    # rise ("哪三个品类比上月掉得最厉害", "the regions that grew fastest year on year")
    "fell": r"(掉|跌|降|下滑|下降|减少|缩水)得?最(多|厉害|狠|快|猛)|(降|跌)幅最大|下滑最(多|快|严重)"
            r"|\b(fell|dropped|declined|decreased|shrank|slipped|slid)" + _WHAT_CHANGED + r"( the)? (most|furthest|fastest|hardest)\b"
            r"|\b(biggest|largest|steepest|sharpest|worst) (drops?|declines?|falls?|decreases?|decliners?)\b"
            # the least growth is the bottom of the changes: "the weakest revenue growth", 增长最慢, 涨幅最小
            r"|\b(weakest|slowest|lowest|smallest|poorest|worst) ([\w-]+ ){0,2}(growth|increases?|gains?)\b"
            r"|增长最(慢|少)|增速最(慢|低)|(涨|增)幅最小",
    # a change ranked by its amount, not its rate: "掉得最多" (most: a quantity), not "最快", "最厉害", "增速"
    "by_amount": r"(掉|跌|降|下滑|下降|减少|缩水|涨|增长|增加|上升|提升)得?最多",
    "grew": r"(涨|增长|增加|上升|提升)得?最(多|快|猛)|(涨|增)幅最大|增速最(快|高)"
            r"|\b(grew|rose|increased|jumped|climbed|gained)" + _WHAT_CHANGED + r"( the)? (most|fastest|furthest)\b"
            r"|\b(biggest|largest|strongest|fastest|sharpest|highest|best) ([\w-]+ ){0,2}(growth|increases?|gains?|jumps?|rises?|risers?)\b"
            r"|\bfastest[- ]growing\b",
    # how members did, no measure named ("how did each region do", 各渠道表现如何): the headline measure, split
    "performance": r"\bhow (did|does|do|is|are|was|were|have|has)\b.{0,40}?\b(do|doing|did|done|perform|performing|performed"
                   r"|go|going|gone)\b|表现(如何|怎么样|怎样|咋样)|(卖|做)得(怎么样|如何|咋样|怎样)",
    # money made, said with a verb and no measure's name ("what did the web channel make last month")
    "earned": r"\b(what|how much) (did|does|do|will)\b.{1,40}?\b(make|earn|bring in|take in|generate)\b"
              r"|\b(earn(ed|s)?|made|makes|brought in|brings in|took in|takes in|pulled in|raked in|generated|generates)"
              r"( (us|for us|the company))? (the )?"
              r"(most|least)\b",  # "which five products earned us the most": ranked by the money they made
    # a comparison's change asked as an amount ("变化了多少", "多了多少", "by how much"): shown beside the growth %
    # ("环比变化多少" asks the 环比 itself: the growth)
    "delta": r"(?<!环比)(?<!同比)变化了?多少|(增加|减少|多|少|差)了多少|相差多少|差距|差值|\bby how much\b"
             r"|(?<![最很至])(多|少|高|低|差)了?(几|多少)|差了?几个|相差|差额"  # "app比小程序多几单", 差几个百分点
             r"|\bhow much (more|less|higher|lower|bigger|smaller)\b|(?<!percentage )(?<!percent )(?<!% )\b(difference|delta|gap)\b",  # "percentage difference": the growth
    # the change asked in the measure's own unit ("差了多少钱", "多了几单", "how many more orders"): the amount, no growth %
    "delta_unit": r"(差|多|少|高|低|涨|跌|增加|减少)了?(多少钱|几(单|笔|件|位|人|块|个(?!百分点))|多少(单|笔|件|个|位|人|元|块))"
                  r"|\bhow many (more|fewer|less)\b|\bhow much (more|less) (money|cash)\b",
    # a rank by judgement, not by size: which end is "worst" depends on the measure (`Measure.better`)
    "judged": r"最(好|差)|拖后腿|\b(best|worst|strongest|weakest|poorest|better|worse)\b",
    # the question asks for money, not a count ("how much money went back in refunds")
    # "refunds last month in yuan", "有几单，合计金额多少": the money of the rows counted
    "money": r"多少钱|(?:合计|总|一共|总共)?金额(?:各自?|分别)?(?:是|有|占|一共|合计|总共)?多少|多少金额|合计金额|[了掉]的钱|\bmoney\b|\bcash\b"
             r"|\bin (?:yuan|rmb|cny)\b|\bhow much (?:\w+\s+){0,3}?(?:refund(?:ed)?|spen[dt]|paid|pay)\b"
             r"|\b(?:paid|gave|handed|sent)\s+back\b|\bpaid\s+out\b"  # "what we paid back to customers as refunds"
             r"|\bwhat (?:did|do|does) (?:they|those|these|it|that) (?:add up to|total|come to|amount to|sum to)\b"
             r"|\b(?:count|number) and (?:the )?(?:total )?amounts?\b|\bamounts? and (?:the )?(?:count|number)\b",
    # after a record's own word, the rows themselves: "退款的记录", "退货的明细" (a refund list, not refunded orders)
    "rows_noun": r"^的?(记录|明细|清单|列表|单据)",
    # a verb that asks to see what follows: "show me yesterday's unpaid orders" (rows, when rows are named)
    "show": r"\b(show|pull up|bring up|display)(\s+me)?\b",
    "list": r"哪些|有哪几|列出|列一下|列个|拉出来|拉一下|拉个(?:单|清单|名单|明细)|明细|清单|名单|列表|详情|谁|\blist\b|\bdetails?\b|\bwhich\b"
            r"|^\s*who\b",
    "who": r"谁|^\s*who\b",  # the members asked are people
    # a number of people asked ("多少个客户" names whom; "多少人", "how many people" do not)
    "people": r"(多少|(?<![哪那这])几)(个|位|名)?人|(多少|(?<![哪那这])几)位|\bhow many (people|persons|individuals)\b"
              r"|\bnumber of (people|persons|individuals)\b",
    "count": r"多少|(?<![哪那这])几[笔单个家位]|数量|总数|合计|总共|一共|\bhow (many|much)\b|\bnumber of\b|\bcount\b|\btotal\b",
    # several values named as one ("华东和华南合计", "app and web combined"): their total, not one row each
    "combined": r"合计|总计|一共|总共|加起来|加在一起|合起来|\bcombined\b|\btogether\b|\bin total\b|\baltogether\b",
    # members named, then pointed back at with their number ("沈阳、大连、哈尔滨、长春这四个城市", "those three channels")
    "these": r"[这那]\s*" + NUM + COUNTED + r"|\b(?:these|those|the)\s+" + EN_NUM + r"\s+(?!of\b)\w",
    # members named to be taken apart ("再分一下App、网页、小程序", "split into app, web and mini program")
    "apart": r"分一下|分开|拆开|拆分|细分|\bsplit\b|\bbroken (?:down|out)\b|\bbreak (?:it |that |them )?(?:down|out)\b",
    "each": r"分别|各自|各是|各(占|贡献|有|卖|花|为|多少)|各[^，。？,.?\s各]{1,4}(多少|几)|\brespectively\b|\beach\b|\bseparately\b",
    # two values set side by side ("app vs web", "华东和华南对比"): one row per value
    "versus": r"\bvs\.?\b|\bversus\b|\bcompar\w*\b|\bimprove[ds]?\s+(on|over|upon)\b|对比|相比|比较|并排|比一比|(摆|放)在?(一起|一块儿?|旁边)|(和|与|跟).{1,12}(比|相比|对比)"
              r"|\bside[- ]by[- ]side\b|\bnext to (each other|it|them|that|those|this)\b|\bagainst\b|\bbeside\b|\balongside\b"
              r"|\bhead[- ]to[- ]head\b|还是"
              r"|\b(which|whether|does|do|did|is|are|was|were)\b.{0,60}\bor\b",  # "does 华南 or 华北 have …"
    # the fields a list shows are attributes of its rows ("products with their brand and price")
    "attributes": r"\bwith (their|its)\b|及其|连同|以及(它们|各自)的",
    # the amount itself asked beside a share ("how many paid orders …, and what percentage", "有多少单，占比多少")
    "amount": r"\bhow (many|much)\b|(有|是)多少(?!钱)(单|笔|件|个|位|人|元|块)|有多少(?=[，,。？?；;\s]|$)|几(单|笔|件|个|位)",
    # a number of people or things asked ("新用户有多少", "how many new customers"), not an amount ("贡献了多少")
    "asks_count": r"有多少|多少(个|位|名|人)|几(个|位|名)|\b(how many|number of|count)\b",
    # what a count counts ("多少用户", "how many customers"): the word after it is not a split
    "counted": r"(多少|(?<![哪那这])几)个?(位|名)?\s*(不同的?|不重复的?)?\s*$|\b(how many|number of|count of)\s+(of\s+(our|the|these|those|all)\s+)?([\w-]+\s+)?$"
               r"|\bcount\s+(?!(by|per|for|of|in|on)\b)((the|all|our)\s+)?([\w-]+\s+)?$",  # "count the distinct customers"
    "single": r"哪(个|一个|家|位|款|天|一天|周|一周|个月|月|年|一年|季度)|(?<!为)什么(?=[^，。？,.?]{1,8}最)|" + phrasing.SUPERLATIVE + r"的(那|一)天|\bwhich\b(?!\s+[a-z-]+(?<!ss)(?<!us)(?<!is)s\b)(?!\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\b)"  # "which brands": the members, not one
              r"|\bwhat\s+(?!(is|are|was|were|did|does|do|percent|percentage|share|proportion|about|if)\b)[a-z]+(?<!s)\b",
}
SPLIT_BEFORE = re.compile(r"(各个?|每个?|每一个|每一?种|各种|每一?类|各类|按照?|分|不同|(?:拆|细分|细化|下钻|钻|展开)(?:到|成)|哪个?|哪些|哪几个|逐个|" + NUM
                          + r"\s*[个名大家款位座]|前\s*" + NUM + r"\s*[个名大家款位座]?的?)\s*$"
                          r"|\b(by|per|each|every|for each|across(?!\s+all\b)|which|what|rank|ranking|sort|compare|top\s*" + EN_NUM + r"|(?<!-)(?!one\b)" + EN_NUM
                          + r")\s+([\w-]+\s+)?$|\b(?:split|broken down|break (?:it |that )?down)\b[^.?!;:]{0,12}[:：]\s*$"
                          r"|(?:^|[;:.!?]\s*|\bplease\s+)order\s+([\w-]+\s+)?$|,\s*order\s+(the|these|those|all|our)\s+([\w-]+\s+)?$", re.I)
# "5 cities", "top 3 best-performing products", "order the regions by …" split (not ", order channel" in a list of
# fields); "at least one item", "across all channels" (the total of all) and "tier-1 cities" (a value's name) do not


AND = re.compile(r"\s*(和|与|及|以及|、|,|，|&|\band\b|\bor\b|-and-|\s-\s)\s*", re.I)  # two dimensions split together
# "which Apple product", "哪个一线城市": a question word before a value and its kind asks for one row per member
# "销售额最高的城市", "卖得最好的品牌": the one member a superlative right before the dimension's name picks
SUPERLATIVE_BEFORE = re.compile(phrasing.SUPERLATIVE + r"的?\s*$")
# "销售额超过10万的城市有哪些": the members asked after the dimension's name
WHICH_AFTER = re.compile(r"^\s*(都|分别)?(有|是)(哪些|哪几个|哪几家|哪几位)")
WHICH_BEFORE = re.compile(r"\b(which|what)\s+(\w+\s+){1,2}$|(哪[一几]?[个位家款种名座]|哪些)[^，。？,.?\s]{0,6}$|(?<!为)(什么|啥)\s*$", re.I)


def cue(kind: str, question: str) -> bool:
    return rx(CUES[kind], re.I).search(question) is not None
