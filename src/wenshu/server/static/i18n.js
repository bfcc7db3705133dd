// Every user-facing string of the web UI, in English and Chinese, and the language switch.
// Elements carry data-i18n (text), data-i18n-placeholder, data-i18n-title or data-i18n-aria;
// applyI18n() fills them from the current language.

const STRINGS = {
  en: {
    appTitle: "Wenshu",
    tagline: "Ask your data",
    newChat: "New chat",
    history: "History",
    noConversations: "No conversations yet",
    datasource: "Datasource",
    settings: "Settings",
    token: "Access token",
    tokenHint: "Only needed when the server requires sign-in. Stored in this browser.",
    save: "Save",
    saved: "Saved",
    language: "中文",
    languageTitle: "Switch to Chinese",
    menu: "Menu",
    // knowledge base (kb.js, kb_upload.js, citations.js)
    documents: "Documents",
    kbTitle: "Knowledge base",
    kbUpload: "Upload files",
    kbDropHint: "or drop them anywhere on the page: PDF, Word, PowerPoint, Excel, HTML, Markdown, text, CSV.",
    kbDropHere: "Drop the files to add them to the knowledge base",
    kbEmpty: "No documents yet.",
    kbRemove: "Remove",
    kbRemoveConfirm: "Remove “{name}” from the knowledge base?",
    kbSummaryPending: "Searchable; the summary is on its way…",
    kbPages: "{n} pages",
    kbChunks: "{n} passages",
    kbClose: "Close",
    kbSources: "Sources",
    kbPage: "p. {n}",
    kbPassageGone: "This passage is no longer in the knowledge base.",
    "kb.uploading": "uploading",
    "kb.queued": "waiting",
    "kb.parsing": "parsing",
    "kb.chunking": "chunking",
    "kb.embedding": "embedding",
    "kb.summarizing": "summarizing",
    "kb.ready": "ready",
    "kb.error": "error",
    "kb.duplicate": "already added",
    "kb.removed": "removed",
    placeholder: "Ask a question about your data, e.g. top 10 cities by orders",
    send: "Send",
    stop: "Stop",
    welcome:
      "Ask a question in Chinese or English. Wenshu writes the SQL, runs it read-only and answers with a table and a chart.",
    examples: "Try:",
    example1: "Top 10 cities by orders",
    example2: "每个城市的订单量Top10",
    steps: "Steps",
    stepsRunning: "Working…",
    sql: "SQL",
    copy: "Copy",
    copied: "Copied",
    rows: "{n} rows",
    rowsTruncated: "{n} rows (truncated)",
    page: "Page {page} / {pages}",
    prev: "Previous",
    next: "Next",
    downloadCsv: "Download CSV",
    chart: "Chart",
    chartBar: "Bar",
    chartLine: "Line",
    chartArc: "Pie",
    chartTable: "Table only",
    chartError: "The chart could not be drawn.",
    stopped: "Stopped.",
    chipRemove: "Remove",
    chipWithout: "Without {x}",
    chipSwitch: "Switch to {x}",
    queuedNext: "Queued: yours is next.",
    queuedAhead: "Queued, {n} questions ahead.",
    preparing: "Preparing the model for this datasource (first question only): {pct}%",
    errorPrefix: "Error",
    networkError: "Cannot reach the Wenshu server.",
    unauthorized: "This server needs an access token: paste one in Settings.",
    cached: "from cache",
    rename: "Rename",
    renamePrompt: "New title",
    delete: "Delete",
    deleteConfirm: "Delete this conversation?",
    untitled: "New conversation",
    "node.queue": "Queue",
    "node.intent": "Intent",
    "node.recall": "Recall",
    "node.generate": "SQL",
    "node.validate": "Validate",
    "node.execute": "Run",
    "node.evaluate": "Evaluate",
    "node.explain": "Explain",
    "node.respond": "Reply",
    "node.fallback": "Fallback",
    "node.route": "Route",
    "node.decide": "Decide",
    "route.data": "data question: straight to the data pipeline",
    "route.agent": "tools and skills",
    "route.direct": "direct reply",
    assistantMode: "Assistant",
    assistantModeTitle: "Let the assistant answer: data questions as before, plus tools, skills and documents",
    "status.started": "running",
    "status.ok": "done",
    "status.finished": "done",
    "status.retry": "retry",
    "status.error": "failed",
    "status.skipped": "skipped",
    "status.cached": "cached",
    "status.stopped": "stopped",
  },
  zh: {
    appTitle: "问数",
    tagline: "用中文或英文问数据",
    newChat: "新对话",
    history: "历史对话",
    noConversations: "还没有对话",
    datasource: "数据源",
    settings: "设置",
    token: "访问令牌",
    tokenHint: "仅当服务器要求登录时需要，保存在本浏览器中。",
    save: "保存",
    saved: "已保存",
    language: "English",
    languageTitle: "切换到英文",
    menu: "菜单",
    // knowledge base (kb.js, kb_upload.js, citations.js)
    documents: "文档",
    kbTitle: "知识库",
    kbUpload: "上传文件",
    kbDropHint: "或把文件拖到页面任意位置：PDF、Word、PowerPoint、Excel、HTML、Markdown、文本、CSV。",
    kbDropHere: "松开鼠标，把文件加入知识库",
    kbEmpty: "还没有文档。",
    kbRemove: "删除",
    kbRemoveConfirm: "从知识库中删除「{name}」？",
    kbSummaryPending: "已可检索，摘要生成中…",
    kbPages: "{n} 页",
    kbChunks: "{n} 个段落",
    kbClose: "关闭",
    kbSources: "来源",
    kbPage: "第 {n} 页",
    kbPassageGone: "该段落已不在知识库中。",
    "kb.uploading": "上传中",
    "kb.queued": "等待中",
    "kb.parsing": "解析中",
    "kb.chunking": "切分中",
    "kb.embedding": "向量化中",
    "kb.summarizing": "生成摘要中",
    "kb.ready": "就绪",
    "kb.error": "失败",
    "kb.duplicate": "已添加过",
    "kb.removed": "已删除",
    placeholder: "输入关于数据的问题，例如：每个城市的订单量Top10",
    send: "发送",
    stop: "停止",
    welcome: "用中文或英文提问。问数会生成 SQL、只读执行，并用表格和图表回答。",
    examples: "试试：",
    example1: "Top 10 cities by orders",
    example2: "每个城市的订单量Top10",
    steps: "执行步骤",
    stepsRunning: "处理中…",
    sql: "SQL",
    copy: "复制",
    copied: "已复制",
    rows: "{n} 行",
    rowsTruncated: "{n} 行（已截断）",
    page: "第 {page} / {pages} 页",
    prev: "上一页",
    next: "下一页",
    downloadCsv: "下载 CSV",
    chart: "图表",
    chartBar: "柱状图",
    chartLine: "折线图",
    chartArc: "饼图",
    chartTable: "仅表格",
    chartError: "图表无法绘制。",
    stopped: "已停止。",
    chipRemove: "去掉",
    chipWithout: "去掉「{x}」",
    chipSwitch: "换成「{x}」",
    queuedNext: "排队中，下一个就是你。",
    queuedAhead: "排队中，前面还有 {n} 个问题。",
    preparing: "正在为该数据源准备模型（仅首次提问）：{pct}%",
    errorPrefix: "错误",
    networkError: "无法连接问数服务器。",
    unauthorized: "该服务器需要访问令牌：请在设置中填写。",
    cached: "来自缓存",
    rename: "重命名",
    renamePrompt: "新标题",
    delete: "删除",
    deleteConfirm: "删除这个对话？",
    untitled: "新对话",
    "node.queue": "排队",
    "node.intent": "意图识别",
    "node.recall": "召回",
    "node.generate": "生成 SQL",
    "node.validate": "校验",
    "node.execute": "执行",
    "node.evaluate": "评估",
    "node.explain": "解释",
    "node.respond": "回复",
    "node.fallback": "兜底",
    "node.route": "路由",
    "node.decide": "决策",
    "route.data": "数据问题：直接交给数据查询",
    "route.agent": "工具与技能",
    "route.direct": "直接回复",
    assistantMode: "助手",
    assistantModeTitle: "由助手回答：数据问题照常查询，另可使用工具、技能和文档",
    "status.started": "进行中",
    "status.ok": "完成",
    "status.finished": "完成",
    "status.retry": "重试",
    "status.error": "失败",
    "status.skipped": "跳过",
    "status.cached": "缓存",
    "status.stopped": "已停止",
  },
};

const KEY = "wenshu.lang";
const listeners = [];

function initialLang() {
  const saved = localStorage.getItem(KEY);
  if (saved === "zh" || saved === "en") return saved;
  return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
}

let lang = initialLang();

export function getLang() {
  return lang;
}

export function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

export function applyI18n(root = document) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n, el.dataset.i18nVars ? JSON.parse(el.dataset.i18nVars) : {});
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

// Mark an element as translated text (with optional variables) and fill it now.
export function label(el, key, vars) {
  el.dataset.i18n = key;
  if (vars) el.dataset.i18nVars = JSON.stringify(vars);
  else delete el.dataset.i18nVars;
  el.textContent = t(key, vars || {});
  return el;
}

export function setLang(next) {
  lang = next === "zh" ? "zh" : "en";
  localStorage.setItem(KEY, lang);
  applyI18n();
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.push(fn);
}
