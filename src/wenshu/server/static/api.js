// The HTTP client: JSON calls with the shared error shape, and Server-Sent Events over fetch
// streaming (EventSource cannot POST). Sends the token from localStorage and the UI language.

import { getLang, t } from "./i18n.js";

const TOKEN_KEY = "wenshu.token";

export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export function getToken() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token.trim());
  else localStorage.removeItem(TOKEN_KEY);
}

export function headers(json) {
  const h = { "Accept-Language": getLang() === "zh" ? "zh-CN" : "en" };
  if (json) h["Content-Type"] = "application/json";
  const token = getToken();
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

export async function errorFrom(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: fall through to a generic message */
  }
  const err = body && body.error;
  if (err && err.message) return new ApiError(err.code || "error", err.message, res.status);
  if (res.status === 401) return new ApiError("unauthorized", t("unauthorized"), 401);
  return new ApiError(`http_${res.status}`, `HTTP ${res.status} ${res.statusText}`, res.status);
}

async function send(method, path, body, signal) {
  try {
    return await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError("network_error", t("networkError"));
  }
}

export async function request(method, path, body) {
  const res = await send(method, path, body);
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return null;
  return res.json();
}

// Split an SSE text buffer into complete events; returns [events, rest].
export function parseSse(buffer) {
  const events = [];
  const blocks = buffer.replace(/\r\n/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    let type = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") type = value;
      else if (field === "data") data.push(value);
    }
    if (!data.length) continue;
    let payload = data.join("\n");
    try {
      payload = JSON.parse(payload);
    } catch {
      /* keep the raw text */
    }
    events.push({ type, data: payload });
  }
  return [events, rest];
}

// POST a body (or GET, without one) and call onEvent({type, data}) for each streamed event until the stream ends.
export async function stream(path, body, onEvent, signal, method = "POST") {
  const res = await send(method, path, body, signal);
  if (!res.ok) throw await errorFrom(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const [events, rest] = parseSse(buffer);
    buffer = rest;
    for (const ev of events) onEvent(ev);
  }
  const [events] = parseSse(buffer + "\n\n");
  for (const ev of events) onEvent(ev);
}

export const api = {
  meta: () => request("GET", "/api/meta"),
  datasources: () => request("GET", "/api/datasources"),
  conversations: () => request("GET", "/api/conversations"),
  conversation: (id) => request("GET", `/api/conversations/${encodeURIComponent(id)}`),
  createConversation: (datasource) => request("POST", "/api/conversations", datasource ? { datasource } : {}),
  renameConversation: (id, title) => request("PATCH", `/api/conversations/${encodeURIComponent(id)}`, { title }),
  deleteConversation: (id) => request("DELETE", `/api/conversations/${encodeURIComponent(id)}`),
  stop: (id) => request("POST", `/api/conversations/${encodeURIComponent(id)}/stop`, {}),
  feedback: (id, verdict) => request("POST", `/api/conversations/${encodeURIComponent(id)}/feedback`, { verdict }),
  ask: (id, message, datasource, onEvent, signal, plan) =>
    stream(`/api/conversations/${encodeURIComponent(id)}/messages`, { message, datasource, plan }, onEvent, signal),
  assist: (id, message, datasource, onEvent, signal, workspace) =>
    stream(`/api/conversations/${encodeURIComponent(id)}/assistant`,
      { message, datasource, workspace: workspace || undefined }, onEvent, signal),
};
