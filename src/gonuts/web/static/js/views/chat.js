// Table chat (docs/protocol.md "Chat"): the live panel beside the table and the read-only log
// of a replay. Every line is put on the page as text (textContent through dom.js's h), never
// as markup: a line such as "<img onerror=…>" shows those very characters.

import { ApiError } from "../api.js";
import { h, mount } from "../dom.js";
import { currentLanguage, displayName, t } from "../i18n.js";

/** The quick reactions: the server's ids and how they look. */
export const REACTIONS = [
  ["hi", "👋"], ["gg", "🤝"], ["nice", "👍"], ["oops", "😅"], ["wow", "😮"], ["thanks", "🙏"],
];
const EMOJI = Object.fromEntries(REACTIONS);
const MAX_TEXT = 300;

async function getJson(url) {
  const res = await fetch(`${url}?lang=${currentLanguage()}`, { headers: { Accept: "application/json" } });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  return data;
}

async function postJson(url, body, token, signal) {
  const headers = { Accept: "application/json", "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${url}?lang=${currentLanguage()}`, { method: "POST", headers, body: JSON.stringify(body ?? {}), signal });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  return data;
}

/** The waiting room's and the chat's HTTP calls (docs/protocol.md "Waiting room", "Chat"). */
export const roomApi = {
  room: (id) => getJson(`/api/tables/${encodeURIComponent(id)}/room`),
  chat: (id) => getJson(`/api/tables/${encodeURIComponent(id)}/chat`),
  setSeat: (id, seat, body, token) => postJson(`/api/tables/${encodeURIComponent(id)}/seats/${seat}`, body, token),
  remove: (id, seat, token) => postJson(`/api/tables/${encodeURIComponent(id)}/seats/${seat}/remove`, {}, token),
  start: (id, level, token) => postJson(`/api/tables/${encodeURIComponent(id)}/start`, level ? { level } : {}, token),
  cancel: (id, token) => postJson(`/api/tables/${encodeURIComponent(id)}/cancel`, {}, token),
  /** Waits until seated (or `signal` aborts it: the server then takes us out of the queue). */
  playNow: (players, name, signal) => postJson("/api/play-now", name ? { players, name } : { players }, null, signal),
};

function muteKey(tableId) {
  return `gonuts.mute.${tableId}`;
}

function lineNode(m, { muted = false, onMute = null } = {}) {
  const who = h("span", { class: "chat-name" }, displayName(m.name));
  const body = m.reaction
    ? h("span", { class: "chat-reaction", title: m.reaction, "aria-label": m.reaction }, EMOJI[m.reaction] ?? m.reaction)
    : h("span", { class: "chat-text" }, m.text ?? "");
  return h("li", { class: muted ? "chat-line muted-line" : "chat-line", dataset: { seat: String(m.seat) } },
    who, ": ", muted ? h("em", { class: "muted" }, t("chat.muted_line")) : body,
    onMute ? h("button", {
      type: "button", class: "link chat-mute", "data-testid": `mute-${m.seat}`,
      "aria-label": t(muted ? "chat.unmute" : "chat.mute", { name: displayName(m.name) }),
      onclick: () => onMute(m.seat),
    }, t(muted ? "chat.unmute_short" : "chat.mute_short")) : null);
}

/** The live chat of a table: its log, a line to type, the quick reactions, muting. */
export class ChatPanel {
  /** @param {{tableId: string, send: (m: object) => void}} options */
  constructor({ tableId, send }) {
    this.tableId = tableId;
    this.send = send;
    this.seat = null;
    this.enabled = true;
    this.lines = [];
    this.notices = [];
    this.muted = new Set(JSON.parse(sessionStorage.getItem(muteKey(tableId)) ?? "[]"));
    this.list = h("ol", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" });
    this.form = h("div", { class: "chat-form" });
    this.title = h("h3", { id: "chat-title" }, t("chat.title"));
    this.toggle = h("button", {
      type: "button", class: "secondary chat-toggle", "data-testid": "chat-toggle", "aria-expanded": "false",
      onclick: () => this.#setOpen(!this.open),
    });
    this.body = h("div", { class: "chat-body" }, this.list, this.form);
    this.element = h("section", { class: "panel chat", "aria-labelledby": "chat-title", "data-testid": "chat" },
      h("div", { class: "chat-head" }, this.title, this.toggle), this.body);
    this.docked = false;
    this.open = true;
    this.unread = 0;
  }

  /** During the game the chat is a small window in the corner, closed until asked for (the
   * table keeps the whole screen); in the waiting room it is a panel of the page. */
  setDocked(docked) {
    if (this.docked === docked) return;
    this.docked = docked;
    this.element.classList.toggle("docked", docked);
    this.#setOpen(!docked);
  }

  #setOpen(open) {
    this.open = open;
    if (open) this.unread = 0;
    this.element.classList.toggle("closed", !open);
    this.toggle.setAttribute("aria-expanded", String(open));
    this.#renderToggle();
    if (open) this.list.scrollTop = this.list.scrollHeight;
  }

  #renderToggle() {
    mount(this.toggle, this.open ? t("chat.hide") : this.unread ? t("chat.show_unread", { n: this.unread }) : t("chat.show"));
  }

  /** The stored log, merged with what the socket brought (by id). */
  async load() {
    const was = this.enabled;
    try {
      const log = await roomApi.chat(this.tableId);
      this.enabled = log.enabled;
      const known = new Set(this.lines.map((m) => m.id));
      this.lines = [...log.messages.filter((m) => !known.has(m.id)), ...this.lines].sort((a, b) => a.id - b.id);
    } catch {
      // the table may be gone: the page says so
    }
    if (was !== this.enabled || !this.form.childElementCount) this.render();
    else this.renderLog(); // (a line being typed is kept)
  }

  setSeat(seat) {
    if (this.form.childElementCount && this.seat === (seat ?? null)) return; // (a reconnect)
    this.seat = seat ?? null;
    this.render();
  }

  /** A socket message: a line, a notice, or a refusal of ours. */
  onMessage(msg) {
    if (msg.type === "chat") {
      if (!this.lines.some((m) => m.id === msg.id)) {
        this.lines.push(msg);
        if (!this.open && msg.seat !== this.seat && !this.muted.has(msg.seat)) {
          this.unread += 1;
          this.#renderToggle();
        }
      }
      this.lines = this.lines.slice(-200);
      this.renderLog();
    } else if (msg.type === "chat_notice") {
      this.notices.push({ text: msg.text, after: this.lines.at(-1)?.id ?? 0 });
      this.notices = this.notices.slice(-20);
      this.renderLog();
    }
  }

  #toggleMute(seat) {
    if (this.muted.has(seat)) this.muted.delete(seat);
    else this.muted.add(seat);
    sessionStorage.setItem(muteKey(this.tableId), JSON.stringify([...this.muted]));
    this.renderLog();
  }

  renderLog() {
    const items = [];
    let n = 0;
    for (const m of this.lines) {
      while (n < this.notices.length && this.notices[n].after < m.id) items.push(this.#notice(this.notices[n++]));
      const mine = m.seat === this.seat;
      items.push(lineNode(m, { muted: !mine && this.muted.has(m.seat), onMute: mine ? null : (s) => this.#toggleMute(s) }));
    }
    while (n < this.notices.length) items.push(this.#notice(this.notices[n++]));
    if (!items.length) items.push(h("li", { class: "muted" }, t(this.enabled ? "chat.empty" : "chat.off")));
    mount(this.list, items);
    this.list.scrollTop = this.list.scrollHeight;
  }

  #notice(n) {
    return h("li", { class: "chat-notice", "data-testid": "chat-notice" }, n.text);
  }

  render() {
    mount(this.title, t("chat.title"));
    this.#renderToggle();
    this.renderLog();
    if (!this.enabled) {
      mount(this.form, h("p", { class: "muted" }, t("chat.off")));
      return;
    }
    if (this.seat === null) {
      mount(this.form, h("p", { class: "muted" }, t("chat.spectators")));
      return;
    }
    const input = h("input", {
      type: "text", id: "chat-input", "data-testid": "chat-input", maxlength: MAX_TEXT,
      autocomplete: "off", placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"),
    });
    const sendLine = () => {
      const text = input.value.replace(/[\r\n]+/g, " ").trim();
      if (!text) return;
      this.send({ type: "chat", text });
      input.value = "";
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        sendLine();
      }
    });
    mount(this.form,
      h("div", { class: "row-inline" },
        input,
        h("button", { type: "button", "data-testid": "chat-send", onclick: sendLine }, t("chat.send"))),
      h("div", { class: "chat-reactions", role: "group", "aria-label": t("chat.reactions") },
        REACTIONS.map(([id, emoji]) => h("button", {
          type: "button", class: "secondary reaction", "data-testid": `react-${id}`,
          "aria-label": t(`chat.reaction.${id}`), title: t(`chat.reaction.${id}`),
          onclick: () => this.send({ type: "chat", reaction: id }),
        }, emoji))));
  }
}

/** A finished game's chat, read-only (the replay page mounts it). */
export function chatLog(tableId) {
  const list = h("ol", { class: "chat-log", "data-testid": "replay-chat" });
  const box = h("section", { class: "panel chat", "aria-label": t("chat.title") }, h("h3", {}, t("chat.title")), list);
  roomApi.chat(tableId).then((log) => {
    mount(list, log.messages.length ? log.messages.map((m) => lineNode(m)) : h("li", { class: "muted" }, t("chat.empty")));
  }).catch(() => box.remove());
  return box;
}
