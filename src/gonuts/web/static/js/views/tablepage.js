// /t/{id}: the waiting room while seats fill (the host's controls: a seat's kind, removing a
// guest, starting now, cancelling), then the live table over the WebSocket; the chat beside.

import { api } from "../api.js";
import { h, mount } from "../dom.js";
import { currentLanguage, displayName, onLanguageChange, t } from "../i18n.js";
import { forgetSeat, saveSeat, seatFor } from "../session.js";
import { TableSocket } from "../socket.js";
import { TurnClock } from "../clock.js";
import { nameInput, readName } from "./lobby.js";
import { TableScreen } from "./table.js";
import { TutorialGuide } from "./tutorial.js";
import { accountApi, knownAccount, refreshAccount } from "./account.js";
import { ChatPanel, roomApi } from "./chat.js";

const HOST_CHOICES = ["human", "easy", "medium", "hard"];

export class TablePage {
  /**
   * @param {HTMLElement} root
   * @param {string} tableId
   * @param {(path: string) => void} navigate
   * @param {{watch?: boolean}} [options]
   */
  constructor(root, tableId, navigate, options = {}) {
    this.root = root;
    this.tableId = tableId;
    this.navigate = navigate;
    this.watch = options.watch ?? false;
    this.summary = null;
    this.socket = null;
    this.started = false;
    this.nextTable = null;
    this.banner = h("div", { class: "banner-area" });
    this.body = h("div");
    this.room = { host_seat: null, chat: true };
    this.chat = new ChatPanel({ tableId, send: (m) => this.socket?.send(m) });
    this.clock = new TurnClock({ send: (m) => this.socket?.send(m) });
    this.screen = new TableScreen(this.body, {
      clock: this.clock,
      act: (action) => this.socket?.act(action),
      toggleHints: (on) => {
        this.socket?.send({ type: "hints", on });
        this.screen.setHintsOn(on);
      },
      playAgain: () => this.#playAgain(),
    });
    this.unlisten = onLanguageChange((lang) => this.socket?.send({ type: "lang", lang }));
  }

  async start() {
    mount(this.root, this.banner, this.body, this.chat.element);
    mount(this.body, h("p", { class: "muted" }, t("app.loading")));
    try {
      this.summary = await api.table(this.tableId);
      this.room = await roomApi.room(this.tableId).catch(() => this.room);
      this.chat.load();
    } catch {
      this.chat.element.remove();
      mount(this.body, h("div", { class: "error-banner", role: "alert" }, t("error.table_gone")),
        h("a", { href: "/", "data-link": "" }, t("end.back")));
      return;
    }
    const mine = seatFor(this.tableId);
    if (mine || this.watch || this.summary.status !== "open") this.#connect(mine?.token ?? null);
    else this.#renderWaiting();
  }

  /** Draw again (after a language change). */
  rerender() {
    if (!this.started && this.summary?.status === "open") this.#renderWaiting();
    else this.screen.render();
    this.chat.render();
  }

  stop() {
    this.clock.stop();
    this.screen.destroy();
    this.socket?.close();
    this.unlisten();
    document.querySelectorAll("dialog").forEach((d) => d.remove());
  }

  #connect(token) {
    this.socket?.close();
    this.socket = new TableSocket(this.tableId, {
      token,
      lang: currentLanguage(),
      onMessage: (msg) => this.#onMessage(msg),
      onStatus: (status) => this.#onStatus(status),
    });
  }

  #onStatus(status) {
    if (status === "closed") {
      mount(this.banner, h("div", { class: "error-banner", role: "status" }, t("app.connection_lost")));
    } else if (status === "open") {
      mount(this.banner);
    } else if (status === "fatal") {
      mount(this.banner, h("div", { class: "error-banner", role: "alert" }, t("error.table_gone")));
    }
  }

  #onMessage(msg) {
    this.clock.onMessage(msg); // countdowns, timeouts, "while you were away", "your turn"
    switch (msg.type) {
      case "chat":
      case "chat_notice":
        this.chat.onMessage(msg);
        break;
      case "removed":
      case "cancelled":
        this.#leftRoom(msg.type);
        break;
      case "welcome":
        this.seat = msg.spectator ? null : msg.seat;
        this.chat.setSeat(this.seat);
        this.chat.load(); // what was said before this socket joined (or while it was away)
        this.screen.hintsOn = Boolean(msg.hints);
        this.#setSummary(msg.table);
        break;
      case "table":
        this.#setSummary(msg.table);
        break;
      case "state": {
        this.started = true;
        this.chat.setDocked(true);
        const shown = this.screen.update(msg, { names: msg.view.players, seats: this.summary?.seats, gameId: this.tableId });
        this.guide ??= TutorialGuide.forTable(this.body, this.summary, this.seat, this.navigate);
        this.guide?.onState(msg, shown);
        if (msg.view.over && !this.ratingAsked && this.seat !== null && this.seat !== undefined) {
          this.ratingAsked = true;
          this.#showRating();
        }
        break;
      }
      case "hint":
        this.screen.setHints(msg);
        break;
      case "error":
        if (msg.code === "bad_token") {
          mount(this.banner, h("div", { class: "error-banner", role: "alert" }, msg.message));
        } else if (!this.started) {
          mount(this.banner, h("div", { class: "error-banner", role: "alert", "data-testid": "room-error" }, msg.message));
        } else {
          this.screen.showError(msg.message);
        }
        break;
      case "next_table":
        this.nextTable = msg.table_id;
        this.#renderNextTable();
        break;
      default:
        break;
    }
  }

  /** A signed-in player's rating change for this game, once the server has rated it (the
   * header's rating is refreshed too). Unrated games (fewer than two accounts) show none. */
  async #showRating() {
    if (!knownAccount()) return;
    for (let attempt = 0; attempt < 6; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 300 + attempt * 300));
      const account = await refreshAccount();
      if (!account) return;
      try {
        const profile = await accountApi.player(account.name);
        const entry = (profile.history ?? []).find((e) => e.game_id === this.tableId);
        if (entry) {
          this.screen.setRating({ rating: entry.rating, change: entry.change });
          return;
        }
        const game = (profile.recent_games ?? []).find((g) => g.id === this.tableId);
        if (game && game.rating_change === null) return; // not a rated game
      } catch {
        return;
      }
    }
  }

  #setSummary(summary) {
    this.summary = summary;
    if (this.started) this.screen.setSeats(summary.seats);
    if (summary.next_table && !this.nextTable) {
      this.nextTable = summary.next_table;
      this.#renderNextTable();
    }
    if (!this.started && summary.status === "open" && !this.left) this.#renderWaiting();
  }

  #renderNextTable() {
    if (this.seat === null || this.seat === undefined) return;
    mount(this.banner, h("div", { class: "prompt" }, t("end.play_again"), " ",
      h("button", { type: "button", "data-testid": "join-next", onclick: () => this.#playAgain() },
        t("lobby.join"))));
  }

  async #playAgain() {
    const mine = seatFor(this.tableId);
    if (!mine) return;
    try {
      const res = await api.again(this.tableId, mine.token);
      saveSeat(res.table.id, res.seat, res.token);
      this.navigate(`/t/${res.table.id}`);
    } catch (e) {
      this.screen.showError(e.message);
    }
  }

  /** The host's choice for one seat: a person or a bot of a level; remove a seated guest. */
  #seatControls(s, token) {
    const current = s.kind === "bot" ? (s.level ?? "medium") : "human";
    const select = h("select", {
        "data-testid": `host-seat-${s.seat}`, "aria-label": t("room.seat_kind", { n: s.seat + 1 }),
        onchange: (e) => {
          const value = e.target.value;
          this.#host(() => roomApi.setSeat(this.tableId, s.seat,
            value === "human" ? { kind: "human" } : { kind: "bot", level: value }, token));
        },
      },
      HOST_CHOICES.map((c) => h("option", { value: c, selected: c === current },
        c === "human" ? t("lobby.human") : `${t("lobby.bot")} · ${t(`lobby.level.${c}`)}`)));
    return h("span", { class: "host-controls" }, " ", select,
      s.kind === "human" && s.taken
        ? h("button", {
          type: "button", class: "secondary", "data-testid": `host-remove-${s.seat}`,
          onclick: () => this.#host(() => roomApi.remove(this.tableId, s.seat, token)),
        }, t("room.remove"))
        : null);
  }

  /** Start now (bots in the empty seats) and cancel the table. */
  #hostActions(token) {
    return h("div", { class: "row-inline host-actions" },
      h("button", {
        type: "button", "data-testid": "host-start",
        onclick: () => this.#host(() => roomApi.start(this.tableId, null, token)),
      }, t("room.start_now")),
      h("button", {
        type: "button", class: "secondary danger", "data-testid": "host-cancel",
        onclick: async () => {
          // a second click confirms (the first one asks)
          if (!this.cancelArmed) {
            this.cancelArmed = true;
            this.#renderWaiting();
            return;
          }
          if (await this.#host(() => roomApi.cancel(this.tableId, token))) this.#leftRoom("cancelled");
        },
      }, t(this.cancelArmed ? "room.cancel_confirm" : "room.cancel")));
  }

  /** One of the host's steps; the socket brings everyone the new summary. */
  async #host(step) {
    try {
      const res = await step();
      if (res?.seats) this.#setSummary(res);
      return true;
    } catch (e) {
      mount(this.banner, h("div", { class: "error-banner", role: "alert", "data-testid": "room-error" }, e.message));
      return false;
    }
  }

  /** The host removed this player, or cancelled the table: say so, stop reconnecting. */
  #leftRoom(why) {
    if (this.left) return;
    this.left = why;
    forgetSeat(this.tableId);
    this.socket?.close();
    this.socket = null;
    mount(this.banner);
    mount(this.body,
      h("div", { class: "prompt", role: "alert", "data-testid": `room-${why}` },
        t(why === "removed" ? "room.you_were_removed" : "room.was_cancelled")),
      h("a", { href: "/", "data-link": "" }, t("end.back")));
    this.chat.element.remove();
  }

  /** Waiting for players: the seats, the invite link, and a join form for a visitor. */
  #renderWaiting() {
    const summary = this.summary;
    const mine = seatFor(this.tableId);
    const invite = new URL(summary.invite_url, location.origin).href;
    const inviteInput = h("input", { type: "text", readonly: true, value: invite, id: "invite-link", "data-testid": "invite-link" });
    const copied = h("span", { class: "muted", role: "status" });
    const errorBox = h("div", { role: "alert" });
    const name = nameInput("join-name");
    const hosting = Boolean(mine) && mine.seat === this.room.host_seat;
    const join = async () => {
      const showError = (m) => mount(errorBox, h("div", { class: "error-banner" }, m));
      const value = readName(name, showError);
      if (!value) return;
      try {
        const res = await api.join(this.tableId, value);
        saveSeat(this.tableId, res.seat, res.token);
        this.summary = res.table;
        this.#connect(res.token);
        this.#renderWaiting();
      } catch (e) {
        showError(e.message);
      }
    };
    mount(this.body,
      h("section", { class: "panel", "data-testid": "waiting-room" },
        h("h2", {}, t("lobby.waiting", {
          taken: summary.seats.filter((s) => s.taken).length,
          total: summary.seats.length,
        })),
        h("label", { for: "invite-link" }, t("lobby.invite")),
        h("div", { class: "invite" },
          inviteInput,
          h("button", {
            type: "button", class: "secondary", "data-testid": "copy-invite",
            onclick: async () => {
              inviteInput.select();
              try {
                await navigator.clipboard.writeText(invite);
              } catch {
                document.execCommand?.("copy");
              }
              copied.textContent = t("lobby.copied");
            },
          }, t("lobby.copy")),
          copied),
        h("h3", {}, t("lobby.seats")),
        h("ul", { class: "seats-status" }, summary.seats.map((s) =>
          h("li", { "data-testid": `room-seat-${s.seat}` },
            `${t("lobby.seat", { n: s.seat + 1 })}: `,
            s.kind === "bot" ? `${displayName(s.name)} ` : s.taken ? h("strong", {}, s.name) : h("em", { class: "muted" }, t("lobby.free_seat")),
            mine?.seat === s.seat ? ` (${t("lobby.you")})` : "",
            s.seat === this.room.host_seat ? h("span", { class: "host-badge" }, ` ${t("room.host")}`) : null,
            hosting && s.seat !== mine.seat ? this.#seatControls(s, mine.token) : null))),
        hosting ? this.#hostActions(mine.token) : null,
        mine ? null : [
          errorBox,
          h("div", { class: "row-inline" },
            h("label", { for: "join-name" }, t("lobby.your_name"), name),
            h("button", { type: "button", "data-testid": "join", onclick: join }, t("lobby.join")),
            h("button", { type: "button", class: "secondary", onclick: () => { this.watch = true; this.#connect(null); } }, t("lobby.watch"))),
        ]));
  }
}
