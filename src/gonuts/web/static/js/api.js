// HTTP calls to the server (docs/protocol.md "Lobby", "Replays and records").

import { currentLanguage } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function request(method, url, { body, token, raw = false, withLang = true } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload;
  if (raw) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const sep = url.includes("?") ? "&" : "?";
  const full = withLang ? `${url}${sep}lang=${currentLanguage()}` : url;
  const res = await fetch(full, { method, headers, body: payload });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  }
  return data;
}

export const api = {
  /** The server's settings and the language it negotiates from the browser's Accept-Language. */
  config: () => request("GET", "/api/config", { withLang: false }),
  tables: (status) => request("GET", `/api/tables${status ? `?status=${status}` : ""}`),
  table: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}`),
  /** `options`: more of the table's settings, e.g. `{variants: [...]}` (docs/protocol.md). */
  create: (seats, name, options = {}) => request("POST", "/api/tables", { body: { seats, name, ...options } }),
  /** The first-game guide: a table against the scripted coach, started at once. */
  tutorial: (name) => request("POST", "/api/tutorial", { body: { name } }),
  join: (id, name) => request("POST", `/api/tables/${encodeURIComponent(id)}/join`, { body: { name } }),
  again: (id, token) => request("POST", `/api/tables/${encodeURIComponent(id)}/again`, { token }),
  games: () => request("GET", "/api/games?limit=50"),
  replay: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/replay`),
  uploadReplay: (text) => request("POST", "/api/replay", { body: text, raw: true }),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
};
