"""Question sets for the accuracy benchmark, all turned into one shape: `Item`.

- Spider-format sets: a JSON list of `{question, query, db_id}` with a database folder
  (`<db_dir>/<db_id>/<db_id>.sqlite`) and an optional `tables.json`. `spider_dev` and `spider_dk`
  are the two shipped in `../shared/bench`; any other file in the same format works with `--set FILE
  --db-dir DIR [--tables FILE]`, so a new set needs no code.
- `demo`: the demo datasource's gold set (src/wenshu/demo/data/gold.yaml), with two-turn
  conversations (`followup_of`): the first turn is asked, then the second turn is asked in the same
  conversation; both are scored, and the follow-ups are also reported on their own. `demo_dev` and
  `demo_test` are its two halves, fixed by id (gold_split.yaml): tune on dev, only report test.
- `spider_dev_200`: the routine subset, a stratified sample of 200 spider_dev questions with a fixed
  seed (`SUBSET_SEED`), so every run scores the same questions. `spider_dev_test` is the rest of
  spider_dev.
- `spider_dev_zh`: 53 spider_dev_200 questions (up to three per database) written in Chinese by
  this project, on Spider's English schemas with the same gold SQL (`bench/data/spider_dev_zh.json`):
  the development set for Chinese questions on English schemas.
- `spider_dk_zh`: 150 Spider-DK questions (about 19 per database) written in Chinese by a helper who
  wrote no code, with Spider-DK's gold SQL (`bench/data/spider_dk_zh.json`): the validation set for
  Chinese questions on English schemas. Like Spider-DK, nobody reads it to write a rule.
- `biz`: 90 business questions over the demo database (`bench/data/biz_questions.yaml`), in Chinese and
  English, written after the demo set was split by a helper who read only the schema, the reference
  values and gold.yaml's conventions: worded unlike the demo set and the semantic model. `biz_dev` is
  for development, `biz_val` for validation. `biz2`: 60 more, written the same way once `biz_dev` was
  tuned on (`bench/data/biz2_questions.yaml`), for development.
- `biz4`: 56 harder business questions (comparisons, shares, ratios, two-turn conversations; 28 Chinese,
  28 English) written the same way by another helper (`bench/data/biz4_questions.yaml`), split by
  conversation: `biz4_dev` for development, `biz4_val` for validation.
- `biz5`: 40 business questions worded the way business users talk (colloquial Chinese, English business
  jargon; 20 Chinese, 20 English, six two-turn conversations) written the same way by another helper
  (`bench/data/biz5_questions.yaml`), for development.
- `biz6`: 36 business questions about aggregates over rows bounded by a row value (orders over N yuan,
  refunds over N, order lines of at least N units), beside look-alikes that bound an aggregate per member
  (HAVING); 18 Chinese, 18 English, three two-turn conversations, written the same way by another helper
  (`bench/data/biz6_questions.yaml`), for development.
- `biz7`: 40 ordinary business questions (totals, splits, top and bottom N, trends, shares, MoM / WoW / YoY
  comparisons, detail lists) worded the way different business users type (terse keywords, chatty, jargon,
  colloquial Chinese); 24 English, 16 Chinese, five two-turn conversations, written the same way by another
  helper (`bench/data/biz7_questions.yaml`), for development.
- `biz8`: 40 more ordinary business questions (totals, splits, top and bottom N, trends, shares, MoM / WoW /
  YoY comparisons, detail lists) worded the way Chinese store operators, finance staff and managers type
  (口语 and 书面, everyday measure words, many ways to say a time window; English terse or in full
  sentences); 26 Chinese, 14 English, six two-turn conversations, written the same way by another helper
  (`bench/data/biz8_questions.yaml`), for development.
- `biz9`: 40 more ordinary business questions (totals, splits, top and bottom N, trends, shares, MoM / WoW /
  YoY comparisons, detail lists) worded the way people really type to a data assistant at work (English from
  non-native speakers and busy managers; Chinese from operations staff, mixed with English, polite and long or
  terse keywords); 20 Chinese, 20 English, six two-turn conversations, written the same way by another helper
  (`bench/data/biz9_questions.yaml`), for development.
- `biz10`: 40 business questions weighted toward the hardest kinds (comparisons with an earlier period: YoY,
  MoM, WoW, quarter on quarter, period so far; shares of a total; trends; top and bottom N; totals and splits
  under one or two filters; detail lists) asked the way a finance controller and a regional sales manager
  type (full sentences, terse keywords, the dimension before the measure, business synonyms); 20 Chinese, 20
  English, six two-turn conversations, written the same way by another helper
  (`bench/data/biz10_questions.yaml`), for development.
- `biz11`: 40 business questions asked the way an operations / marketing team and a customer-service lead type
  in a chat box, weighted toward two-turn refinements (exclude a value, keep two values, a named month or a date
  range, another split, the top 3, last year, the share, another measure) and toward exclusions, multi-value
  filters, named months, explicit date ranges, weekends vs weekdays, new vs returning customers, averages per day
  / per order, distinct counts, bottom N, detail lists and values named in English; 20 Chinese, 20 English,
  twelve two-turn conversations, written the same way by another helper (`bench/data/biz11_questions.yaml`), for
  development.
- `biz12`: 40 business questions weighted toward detail lists (orders, refunds, customers, products, order lines
  and daily traffic rows listed one by one, filtered by order status, amount bounds, city, region, channel,
  member level, gender, category, brand, refund reason or registration date, over relative, named and explicit
  windows, as the latest, biggest or smallest N or sorted by a named field, with the columns named or not) and
  aggregates filtered by order status or amount bounds, asked the way business users type in a chat box; 20
  Chinese, 20 English, twelve two-turn conversations that refine a list (add a filter, change the window, keep
  the top N, re-sort, add or drop a column, switch the status), written the same way by another helper
  (`bench/data/biz12_questions.yaml`), for development.
- `biz13`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  filtered questions (order status, region, city, member level, gender, brand, category, refund reason, channel,
  amount bounds) with totals, counts, averages, splits, top N, shares, 环比 and 同比, detail lists sorted by a named
  field, trends by month and week, comparisons and per-customer / per-product rankings; 20 Chinese, 20 English,
  eight two-turn conversations, written by another helper (`bench/data/biz13_questions.yaml`), for development.
- `biz14`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  two-turn conversations (twelve: a total, split, ranking, share, trend or list refined by one value, another
  window, measure or split, an added comparison, the top N kept or a filter dropped), with comparisons (环比, 同比,
  two named values side by side) and shares with a filter, detail lists sorted by a named field, trends by week
  and month, top N and averages (AOV, average refund); 20 Chinese, 20 English, written by another helper
  (`bench/data/biz14_questions.yaml`), for development.
- `biz15`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  questions worded unlike the textbook metric names, the way managers type: measures by synonyms and everyday
  words (营业额, 流水, 进账, 单量, 下单人数, turnover, takings, average basket, biggest spenders), time said in varied
  ways (上上个月, 本季度至今, 上周末, named months, "since January", "the last two full weeks"), the ask implied
  (拖后腿, "doing worst", "are app sales growing") and filters said indirectly; eight two-turn conversations typed
  the way people chat, with totals, splits, top and bottom N, shares, 环比 / 同比, trends, averages and detail
  lists; 20 Chinese, 20 English, written by another helper (`bench/data/biz15_questions.yaml`), for development.
- `biz16`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  the way English-speaking business people type (shorthand: WoW, QoQ, YoY, MoM %, MTD, QTD, YTD, L30D, "vs LY",
  AOV; "how did each channel do", "what share of ... came from", "bottom 3", "split by") and toward the hardest
  kinds: several measures in one question, ratios (AOV, refund rate, conversion, units per order, margin %),
  filtered rankings, shares inside a filter, period comparisons with growth %, two named values side by side,
  trends and detail lists; ten two-turn conversations whose second turn is typed tersely in English ("and last
  month?", "now by region", "same but for women", "top 3 only", "L7D?"); 26 English, 14 Chinese, written by
  another helper (`bench/data/biz16_questions.yaml`), for development.
- `biz17`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  filters said in many ways (an order status by its name or its meaning, a region, city, city tier, channel,
  category, brand, gender, member level, refund reason, amount or quantity bound; as adjectives, clauses, in
  English, one or two at once) with every kind of question: detail lists with a named sort, top and bottom N, trends,
  环比 / 同比 with a filter, splits and shares inside a filter, totals; eight two-turn conversations whose second turn
  adds, changes or removes a filter (换成还没付款的单子看看, 不限性别了, "make it Diamond members instead"); 26 Chinese,
  14 English, written by another helper (`bench/data/biz17_questions.yaml`), for development.
- `biz18`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  conversations the way an operations manager explores numbers with an assistant: fourteen conversations (six of
  three turns, eight of two) whose later turns are typed tersely (时间换成今年以来, 拿去年同期对比下, 筛一下，只留小程序的,
  品牌换成小米, 换成件数看看, 改成按下单渠道分, 那垫底的两个是哪些, 各占几成？, 按月拉个走势, 把这几单拉出来看看, "just web",
  "by city", "only the 3 biggest"), each later turn following the turn just before it, plus six single questions;
  totals, splits, top and bottom N, trends, 同比 / 环比, shares and detail lists with filters said in everyday words;
  30 Chinese, 10 English, written by another helper (`bench/data/biz18_questions.yaml`), for development.
- `biz19`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  customers, products, traffic and margin: distinct buying customers, new registrations (per month, city, member
  level, city tier), repeat buyers, spend per buying customer, orders per customer, units per product and brand,
  average selling price per unit, items per order, gross profit and margin % per category and brand, UV / PV,
  conversion and refunds per reason; totals, splits, top and bottom N, trends, shares, MoM / WoW / YoY and detail
  lists of customers and products, with filters said in everyday words; six two-turn conversations whose second
  turn switches the measure, adds a filter or a split, narrows to the bottom N, adds a comparison or changes the
  window; 24 Chinese, 16 English, written by another helper (`bench/data/biz19_questions.yaml`), for development.
- `biz20`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  the kinds the earlier sets found hardest, asked the way business people talk: ratio measures against an earlier
  period (客单价 环比 and 本月至今 vs 上月同期, 退款率 vs the same month last year, margin % quarter to date vs last
  quarter, cancellation and conversion rate vs the week before, in points), two members side by side with the
  difference (华东 vs 华南, app vs 小程序, Guangzhou vs Shenzhen, men vs women), shares within a scope, ratio measures
  split by a dimension and ranked, growth rankings, bounded aggregates and averages per order and per customer;
  seven conversations (three of three turns, four of two) whose later turns are terse (那光看app渠道呢？, 去掉小程序,
  跟前一个月比呢？, "now do it per brand", "keep the three worst"); 24 Chinese, 16 English, written by another
  helper (`bench/data/biz20_questions.yaml`), for development.
- `biz21`: 40 business questions written in the style of the demo gold set's development half, weighted toward
  member lists and bounds: customers or products with a total per member and a bound on it (some with an attribute
  shown, some with a filter), products listed by their own field (list price) with a measure per product, a
  dimension's name with 的 and a measure and no split word (品类的退款率, 渠道的单量, "GMV for each sales channel"),
  counts of members passing a bound, new versus existing customers and buyers per channel; six conversations (two of
  three turns, four of two) whose later turns are terse (这里面只留女的, 再按下单渠道拆开瞧瞧, 那大区的呢？, "only the ones
  who live in first-tier cities"); 24 Chinese, 16 English, written by another helper
  (`bench/data/biz21_questions.yaml`), for development.
- `biz22`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix of what a manager asks: totals over a window (昨天, 近7天, 本季度至今, 上半年, "month to date" with its
  run-rate), trends by day, week and month, 同比 / 环比 with growth %, shares, top and bottom N, ratios (客单价,
  毛利率, conversion from daily traffic, 回头客 / "repeat rate", "basket size"), splits by one or two dimensions
  (region and channel, gender and member level, weekday and weekend), new versus existing customers, counts and
  lists of members passing a bound said in words (一万五, "two thousand", "1.5k"), the customer's own city or city
  tier versus the delivery city, members with no rows, and detail lists of orders and refunds; five conversations
  (two of three turns, three of two) whose later turns are terse (金额换成客单价, 改成按周，看最近8个整周, "Narrow that
  down to orders shipped to first-tier cities."); 24 Chinese, 16 English, written by another helper
  (`bench/data/biz22_questions.yaml`), for development.
- `biz23`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix with wordings and shapes other than biz22's: windows said differently (前天, 上上周, 上个季度, 去年全年, 今年以来每个季度,
  过去两周 against the two weeks before, "the last 14 days", "week over week", "year over year"), filters on named
  members (a region, a delivery city, a home city, a category, a brand, a channel, member levels, gender), averages
  per order, per customer (客均) and per day, rates (退货率, conversion of two channels, margin, 回购), shares inside a
  filter, top and bottom N, the cities that grew most, two members side by side, splits by two dimensions, counts of
  distinct customers, trends by day, month and quarter, and detail lists of orders, refunds and members passing a
  bound said in words (三千, 一万二, "five thousand", "5k", "2.5k"); five conversations (two of three turns, three of
  two) whose later turns are terse (换成按单子数算呢？, 小程序那边单独拉一下, 排序口径换成毛利率, "How does that look year over
  year?"); 24 Chinese, 16 English, written by another helper (`bench/data/biz23_questions.yaml`), for development.
- `biz24`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix with wordings and shapes other than biz23's: windows said differently (这礼拜截至今天, 上个周末, 近60天, 过去九十天,
  本月1号到今天 against the same days of last month, 再前一个季度, "the three calendar months just finished", "the last
  half year", "the six most recent complete weeks"), filters on named members (a region, delivery cities, a
  category, a channel, a member level, gender, a refund reason), averages (coupon discount per order, pages per
  visitor, orders per buyer, AOV per month), rates (cancellation per month and its move in points, weekly web
  conversion, the share of orders with a coupon), shares inside a filter, top and bottom N, growth rankings, two
  cities side by side, splits by two dimensions, distinct customers, trends by month, week and hour of day, detail
  lists, members passing a bound said in words (一万, "three quarters of a million", "four thousand"), members that
  have or lack rows (last quarter's buyers with no order this quarter, products never refunded in 30 days) and
  customers with exactly one order with what they spent together; five conversations (two of three turns, three of
  two) whose later turns are terse (换成看有多少人掏钱下单, 光看美妆个护里的呢？, "Only the ones where the item arrived
  broken.", "And in that same month a year back?"); 24 Chinese, 16 English, written by another helper
  (`bench/data/biz24_questions.yaml`), for development.
- `biz25`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix with wordings and shapes other than biz24's: windows said other ways (上月前半月（1号至15号）, 去年国庆七天长假,
  去年下半年, 近十天, 这周一到今天, "quarter to date", "the last eight full weeks", "the three months before this one"),
  filters on named members (a region, delivery cities, a member level, a channel, city tier 1, a category),
  averages (GMV per day on weekends and weekdays, units per order, basket value per member level, refund size per
  reason, daily app visitors per month), rates (gross margin per month, refund rate per city, the share of
  yesterday's orders cancelled or refunded), shares of a total and inside a filter, top and bottom N, growth
  rankings (环比 of regions, 同比 of categories), two cities side by side, splits by two dimensions, distinct and
  first-time customers, trends by day, week and month, detail lists, members passing a bound said in words (五千,
  破百万, 九千, "eight thousand", "twenty-five percent") and counts per member; five conversations (two of three turns,
  three of two) whose later turns are terse (改成按金额算, 只留收货地在华东的订单, 换成仅App渠道的数, "Split that further by
  gender.", "Narrow it to orders delivered in first-tier cities."); 24 Chinese, 16 English, written by another
  helper (`bench/data/biz25_questions.yaml`), for development.
- `biz26`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix with wordings and windows other than those of biz23's, biz24's and biz25's headers: windows said other ways
  (上个月下旬（21号到月底）, 大前天, 去年618那天, 去年双十二那天, 去年第四季度, 上上个月, 近三周, 上周工作日（周一到周五）, 昨天 against
  上周同一天, "the past fortnight", "the last forty-five days", "last four finished weeks", "the quarter before this
  one", "since the start of last month", "so far this month" against the same days a year ago), filters on named
  members (two regions' cities, a member level, two brands, gender, the three channels, a category, delivery
  cities, a home city's tier, list price), averages (AOV per city, price per unit per category, days from order to
  refund), rates (gross margin, the share of orders placed late in the evening), shares of a total and inside a
  filter, top and bottom N, 同比 / 环比 with growth %, two brands side by side, splits by two dimensions, distinct
  customers, trends by day, week, month and quarter, detail lists, members passing a bound said in words (三千五,
  三千块, "four and a half thousand", "ten thousand") and counts of orders by status; five conversations (two of three
  turns, three of two) whose later turns are terse (那各自有几笔付了款？, 其中银卡会员那部分呢？, 和去年同月比呢，涨跌幅也算一下,
  "Split each week by membership tier.", "Same breakdown, only for what we delivered to Wuhan."); 24 Chinese, 16
  English, written by another helper (`bench/data/biz26_questions.yaml`), for development.
- `biz27`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix with wordings and windows other than those of biz23's to biz26's headers: windows said other ways
  (去年第三季度（7到9月）, 上个月中旬（11号到20号）, 去年12月25号圣诞节那天 against 前年圣诞节, 去年五一假期（5月1号到5号）, 去年上半年,
  去年双十一之前那十天, 最近一百五十天, 过去120天, 这星期到今天 against 上星期同样几天, 最近12个完整的周, 去年3月到8月, 上周日, "the first
  ten days of last month", "last year's Valentine's Day", "last Saturday", "the past thirty days" against "the thirty
  days before that", "the last four complete quarters", "between July and September last year"), coupons saved,
  traffic (UV per day and channel, conversion per month, GMV per unique visitor), registrations per home-city tier
  and per month, a cohort without any order, refund rates per channel and city tier, shares of a total and inside a
  filter, top and bottom N and the best seller of each region, 同比 / 环比 with growth % or points, distinct
  customers and brands, trends by day, week, month and quarter, detail lists and bounds said in words (一千块, "nine
  thousand", "fifty yuan"); five conversations (two of three turns, three of two) whose later turns are terse
  (那毛利呢？也按品类算一下, 往前挪一个季度看看, 分渠道再看一下, "Now cut each channel by member level.", "Leave out the regular
  members."); 24 Chinese, 16 English, written by another helper (`bench/data/biz27_questions.yaml`), for
  development.
- `biz28`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix of ordinary everyday questions worded naturally, with wordings and windows other than those of biz23's to
  biz27's headers: windows said other ways (去年11月一整月, 近20天, 上周五 and 那周的周六, 上周三, 去年5月20号那天, 去年七八月份两个月加起来,
  过去十个完整自然周, 最近9个月, 上个月逐日看, "the past 28 days", "October last year" against September, "the 1st of this
  month", "from the 16th of last month to its final day", "the past eighteen complete months", "the last 25 days",
  "the last 12 days"), totals and counts per member, averages per order and per customer, rates (refund rate per
  membership tier and channel, 退货率 per month, 毛利率 per channel, daily mini-program conversion), shares of a total
  and inside a filter, top and bottom N, a member's rank, "is X more than Y", 同比 / 环比 with growth, trends by day,
  week and month, distinct customers, detail lists with a few named columns, members with nothing (categories
  without a sale, cities without a web order), two filters mixed, measures named by synonyms (营业额, 成交额, 下单量, 客单,
  退货率, takings, sales volume, basket size, order count) and bounds said in words (两千块, "six thousand yuan"); five
  conversations (two of three turns, three of two) whose later turns are terse (各区客单又是多少？, 只算App渠道下的单呢,
  换成那周的周六看看, "Now cut it by sales channel too.", "Drop the web orders from that."); 24 Chinese, 16 English,
  written by another helper (`bench/data/biz28_questions.yaml`), for development.
- `biz29`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix of ordinary everyday questions worded naturally, leaning on how Chinese speakers name the split they want
  (类目, 男女, 平台, 区域 / 片区 / 地区, 渠道 / 端, 会员等级, 品牌, 城市) and on splits by two dimensions (类目 by 性别, 区域 by
  渠道, week by 端, 性别 by 会员等级, month by gender), with windows other than those of biz23's to biz28's headers
  (去年夏天（6到8月）, 去年秋天（9到11月）, 上周一 then the day after, 上周前三天（周一到周三）, 上周四, 近35天, 近70天, 近80天, 最近五个整周,
  最近七个月, 最近五个月, 上个月最后七天, 去年三八妇女节, 去年元旦, 去年3月份, 去年六一儿童节, 去年2月份 against 1月份, 去年平安夜, 昨天
  against 去年同一天, 昨晚11点之后, "April last year", "the 1st through the 7th of last month" against the same dates twelve
  months before, "May last year", "the past eighty / seventy-five / nine days", "the matching week of last year",
  "the last ten full calendar months", "the last seven complete weeks"), totals and counts per member, averages per
  order and per paying customer, refund rates per city tier, shares of a total and inside a filter, top and bottom
  N, a brand's rank, "is X more than Y", 同比 / 环比 with growth, trends by day, week and month, distinct customers,
  detail lists with a few named columns, brands with nothing sold, two filters mixed and colloquial measures
  (卖了多少钱, 出了多少单, 平均一单多少钱, 退钱退得最多, 垫底, 排第几名, 单子, 涨了多少, 一件货都没卖出去, 退掉的钱); five conversations (two
  of three turns, three of two) whose later turns are terse (再按男女拆开看看, 只留服装鞋帽和美妆个护这俩, 往后挪一天呢？, 上海不算的话呢,
  "Make that GMV instead.", "Narrow it down to 华东 and 华南."); 24 Chinese, 16 English, written by another helper
  (`bench/data/biz29_questions.yaml`), for development.
- `biz30`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix of ordinary everyday questions worded naturally, leaning on conversations: ten (seven of three turns, three of
  two; 17 follow-ups) whose later turns are typed tersely the way people chat (以及下单人数呢, 只要前三名, 每天里面再分渠道,
  小程序的不算, 分品牌看看, 改看卖出去几件, 拆到会员等级, 和前年同期比呢，涨了百分之几, 网页端呢, 把明细列出来, "Paid orders as well, please.",
  "Only the tier 1 and new tier 1 ones.", "Roll it back to last month.", "And units sold for each of those?", "Break
  it out month by month.", "Women only.", "Widen it to cover last week too.") and that add a count beside
  the measure, ask for the top N just shown, split further, drop or keep members, swap the measure, add a 同比, ask
  the same for another member, switch from a total to its rows, move and widen the window; with windows other than
  those of biz23's to biz29's headers (大上个月, 去年双十一所在的那一周, 上周二, 去年最后一周（12月25号到31号）against 前年同期, 最近一周,
  上个月15号, 去年教师节, 今年一季度, 上个月最后一天, 昨天下午12点到6点, 本季度到目前为止, 近一百八十天, "the week before last", "month to
  date", "the first half of this year", "this week's orders so far", "the past six weeks", "the past 12 weeks", "New
  Year's Eve" against the year before, "the nine weeks before this one", "the day before yesterday", "31 October last
  year (Halloween)", "the same quarter last year"), totals and counts per member, averages per order and per paying
  customer, refund rate and gross margin, shares of a total and inside a filter, top and bottom N, a city's rank,
  "is X more than Y", 同比 with growth, trends by day, week and month, distinct customers, detail lists with a few
  named columns, cities with nothing sold, two filters mixed and numbers in words; 22 Chinese, 18 English, written by
  another helper (`bench/data/biz30_questions.yaml`), for development.
- `biz31`: 40 business questions written blind in the style of the demo gold set's development half, a broad
  mix of ordinary everyday questions, leaning on how real users type: short and colloquial, abbreviations and
  shorthand (AOV, GMV, QTD, YTD, MTD, H2, wk, mos, yr, yday, pls, w/, chg, conv, 8k, 环比, 上Q, 昨儿), Chinese and English
  mixed in one question (上个月 app 的 AOV 是多少, QTD 成都的GMV在所有城市里排第几), numbers in words and digits, polite long forms
  ("Would you mind pulling ...", "Could you pull ...") and two asks in one (..., and which one was biggest?, 退款率多少？哪个
  最高); eight conversations (five of three turns, three of two; 13 follow-ups) whose later turns are typed tersely
  (各区下面再细分到渠道, 只留华东跟西南两个区, 小程序呢, 跟去年同一个月比，涨了百分之几？, 拉个明细，要订单号、退款金额跟原因, 这几个城市客单价各是多少,
  "vs the wk before? w/ % chg", "same thing but count paid orders instead of gmv", "units for each pls", "only what
  women bought", "by membership level pls", "how many of them already bought stuff?", "just the top 3, plus gross
  margin %") and that split further, keep only some members, add a comparison with growth, swap the measure, ask the
  same for another member, add a 同比, add a measure or a filter to a top N, switch from a total to its rows, take the
  top N just shown and ask another measure of it; with windows other than those of biz23's to biz30's headers (上Q, 昨儿,
  近四周, 去年前三个季度, 近三个月, QTD, 近半年, 上周六 against 上上周六, 近13周（不算本周）, 今天下午3点以后, 本周一, 去年Q4, 去年双十一到双十二之间,
  "last wk" against "the wk before", "the past 2 wks", "since Oct 1", "Q3 last yr", "yday", "this Monday through
  today", "Nov last yr", "the last 2 mos", "H2 last yr", "YTD", "MTD ... vs this time last year", "the last 3 full
  wks", "from last yr's Singles' Day to the 20th"), totals and counts per member, averages per order and per paying
  customer, refund rate and conversion, shares of a total and inside a filter, top and bottom N, a city's rank, "is X
  more than Y", 同比 / 环比 with growth, trends by day, week and month, distinct customers, detail lists with a few
  named columns, cities with nothing sold and two filters mixed; 20 Chinese, 20 English, written by another helper
  (`bench/data/biz31_questions.yaml`), for development.

Each named set has a role (`ROLES`): development sets are read and rules are written on them;
the validation set decides by ablation whether a mechanism stays, and nobody reads its questions to
write one; test sets are only reported.

An item whose database is missing is kept and carries a `problem`; the runner reports it per
question instead of aborting.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.hardness import hardness

SUBSET_SEED = 200
SUBSETS = {"spider_dev_200": ("spider_dev", 200)}
# sets on the demo database: name -> (question file, half); `biz` was written after the demo set's split by
# someone who read neither its questions nor the semantic model (bench/data/biz_questions.yaml)
DEMO_SETS = {"demo": ("gold", None), "demo_dev": ("gold", "dev"), "demo_test": ("gold", "test"),
             "biz": ("biz", None), "biz_dev": ("biz", "dev"), "biz_val": ("biz", "val"), "biz2": ("biz2", None),
             "biz3": ("biz3", None), "para_en": ("para_en", None),
             "biz4": ("biz4", None), "biz4_dev": ("biz4", "dev"), "biz4_val": ("biz4", "val"),
             "biz5": ("biz5", None), "biz6": ("biz6", None), "biz7": ("biz7", None),
             "biz8": ("biz8", None), "biz9": ("biz9", None),
             "biz10": ("biz10", None), "biz11": ("biz11", None),
             "biz12": ("biz12", None), "biz13": ("biz13", None),
             "biz14": ("biz14", None), "biz15": ("biz15", None),
             "biz16": ("biz16", None), "biz17": ("biz17", None),
             "biz18": ("biz18", None), "biz19": ("biz19", None),
             "biz20": ("biz20", None), "biz21": ("biz21", None),
             "biz22": ("biz22", None), "biz23": ("biz23", None),
             "biz24": ("biz24", None), "biz25": ("biz25", None),
             "biz26": ("biz26", None), "biz27": ("biz27", None),
             "biz28": ("biz28", None), "biz29": ("biz29", None),
             "biz30": ("biz30", None), "biz31": ("biz31", None)}
ROLES = {"spider_dev_200": "development", "spider_dev_zh": "development", "demo_dev": "development",
         "biz_dev": "development", "biz2": "development", "biz3": "development", "para_en": "development",
         "spider_dk": "validation", "spider_dk_zh": "validation", "biz_val": "validation",
         "spider_dev_test": "test", "demo_test": "test", "spider_dev": "mixed", "demo": "mixed",
         "biz": "mixed", "biz4_dev": "development", "biz4_val": "validation", "biz4": "mixed",
         "biz5": "development", "biz6": "development", "biz7": "development",
         "biz8": "development", "biz9": "development", "biz10": "development",
         "biz11": "development", "biz12": "development", "biz13": "development",
         "biz14": "development", "biz15": "development", "biz16": "development",
         "biz17": "development", "biz18": "development", "biz19": "development",
         "biz20": "development", "biz21": "development", "biz22": "development",
         "biz23": "development", "biz24": "development",
         "biz25": "development", "biz26": "development", "biz27": "development",
         "biz28": "development", "biz29": "development",
         "biz30": "development", "biz31": "development"}


def role_of(set_name: str) -> str:
    """development | validation | test | mixed (a set holding several roles) | other (a file of yours)."""
    return ROLES.get(set_name, "other")


@dataclass
class Item:
    id: str
    question: str
    gold_sql: str
    db_id: str
    db_path: Path | None
    hardness: str
    lang: str = "en"
    followup_of: str | None = None  # id of the first turn of a two-turn conversation
    problem: str | None = None  # e.g. the database file is missing
    split: str | None = None  # "dev" | "test" for the demo set's halves


def shared_bench_dir() -> Path:
    """`../shared/bench` next to the repository (or WENSHU_BENCH_DIR)."""
    env = os.environ.get("WENSHU_BENCH_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "bench"


def _lang(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def load_spider(questions: Path, db_dir: Path | list[Path], prefix: str) -> list[Item]:
    """Items of a Spider-format question file; `prefix` makes ids unique per set. With several
    database folders, the first that holds a question's database serves it."""
    dirs = [Path(d) for d in db_dir] if isinstance(db_dir, list) else [Path(db_dir)]
    try:
        data = json.loads(Path(questions).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise SystemExit(f"Cannot read the question file {questions}: {err}") from err
    items = []
    for i, row in enumerate(data):
        db_id = str(row.get("db_id", ""))
        candidates = [d / db_id / f"{db_id}.sqlite" for d in dirs]
        path = next((p for p in candidates if p.exists()), candidates[0])
        gold = (row.get("query") or "").strip()
        items.append(Item(
            id=f"{prefix}-{i:04d}", question=(row.get("question") or "").strip(), gold_sql=gold,
            db_id=db_id, db_path=path if path.exists() else None, hardness=hardness(gold),
            lang=_lang(row.get("question") or ""),
            problem=None if path.exists() else f"database {db_id} not found under {', '.join(map(str, dirs))}",
        ))  # fmt: skip
    return items


def load_demo(db_path: Path, half: str | None = None, source: str = "gold") -> list[Item]:
    from bench.demo_set import load_biz, load_gold

    golds = load_gold(half) if source == "gold" else load_biz(half, source)
    return [Item(id=g["id"], question=g["question"], gold_sql=g["sql"].strip(), db_id="demo", db_path=db_path,
                 hardness=hardness(g["sql"]), lang=g.get("lang") or _lang(g["question"]),
                 followup_of=g.get("followup_of"), split=g["split"]) for g in golds]  # fmt: skip


def stratified(items: list[Item], n: int, seed: int) -> list[Item]:
    """`n` items, each hardness bucket represented in proportion; the same seed gives the same items."""
    if n >= len(items):
        return list(items)
    rng = random.Random(seed)
    buckets: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        buckets[item.hardness].append(item)
    total = len(items)
    quota = {k: int(n * len(v) / total) for k, v in buckets.items()}
    # Hand out the remainder to the buckets with the largest fractional parts (ties by name).
    rest = sorted(buckets, key=lambda k: (-(n * len(buckets[k]) / total - quota[k]), k))
    for k in rest[: n - sum(quota.values())]:
        quota[k] += 1
    chosen = {id(x) for k in sorted(buckets) for x in rng.sample(buckets[k], quota[k])}
    return [x for x in items if id(x) in chosen]


def head(items: list[Item], n: int | None) -> list[Item]:
    """The first `n` items, keeping a follow-up together with its first turn."""
    if not n or n >= len(items):
        return list(items)
    out: list[Item] = []
    for item in items:
        if len(out) >= n and not item.followup_of:
            break
        out.append(item)
    return out


def resolve_set(name: str, *, db_dir: str | None, tables: str | None, demo_db: Path | None) -> tuple[str, list[Item]]:
    """(set label, items) for a set name or a Spider-format file."""
    base = shared_bench_dir()
    if name in SUBSETS:
        parent, n = SUBSETS[name]
        _, items = resolve_set(parent, db_dir=db_dir, tables=tables, demo_db=demo_db)
        return name, stratified(items, n, SUBSET_SEED)
    if name == "spider_dev_zh":
        own = Path(__file__).resolve().parent / "data" / "spider_dev_zh.json"
        return name, load_spider(own, base / "spider_dev" / "database", "zh")
    if name == "spider_dk_zh":
        own = Path(__file__).resolve().parent / "data" / "spider_dk_zh.json"
        return name, load_spider(own, [base / "spider_dk" / "database", base / "spider_dev" / "database"], "dkzh")
    if name == "spider_dev_test":
        _, items = resolve_set("spider_dev", db_dir=db_dir, tables=tables, demo_db=demo_db)
        dev = {i.id for i in resolve_set("spider_dev_200", db_dir=db_dir, tables=tables, demo_db=demo_db)[1]}
        return name, [i for i in items if i.id not in dev]
    if name == "spider_dev":
        return name, load_spider(base / "spider_dev" / "dev.json", base / "spider_dev" / "database", "dev")
    if name == "spider_dk":
        # Spider-DK asks on Spider dev's databases plus three of its own
        folders = [base / "spider_dk" / "database", base / "spider_dev" / "database"]
        return name, load_spider(base / "spider_dk" / "Spider-DK.json", folders, "dk")
    if name in DEMO_SETS:
        assert demo_db is not None
        source, half = DEMO_SETS[name]
        return name, load_demo(demo_db, half, source)
    path = Path(name)
    if not path.exists():
        raise SystemExit(f"Unknown set '{name}': use spider_dev, spider_dev_200, spider_dev_test, spider_dev_zh, spider_dk, spider_dk_zh, demo, demo_dev, demo_test, biz, biz_dev, biz_val, biz2, biz3, biz4, biz4_dev, biz4_val, biz5, biz6, biz7, biz8, biz9, biz10, biz11, biz12, biz13, biz14, biz15, biz16, biz17, biz18, biz19, biz20, biz21, biz22, biz23, biz24, biz25, biz26, biz27, biz28, biz29, biz30, biz31, para_en or a Spider-format file.")
    if not db_dir:
        raise SystemExit("--db-dir is required with a question file (the folder holding <db_id>/<db_id>.sqlite).")
    items = load_spider(path, Path(db_dir), path.stem)
    if tables:  # the schema itself is read from each database; tables.json says which databases belong to the set
        try:
            known = {t["db_id"] for t in json.loads(Path(tables).read_text(encoding="utf-8"))}
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise SystemExit(f"Cannot read the tables file {tables}: {err}") from err
        for item in items:
            if item.problem is None and item.db_id not in known:
                item.problem = f"database {item.db_id} is not described in {tables}"
    return path.stem, items
