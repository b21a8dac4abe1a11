// The lobby: "Play now" (a seat at a new table with others from the queue), create a table
// (2–6 seats, each a human or a bot level), the open tables to join, the games to watch.

import { api } from "../api.js";
import { h, mount } from "../dom.js";
import { displayName, t } from "../i18n.js";
import { rememberName, saveSeat, savedName } from "../session.js";
import { VARIANTS, variantBadge, variantChoices } from "../variants.js";
import { TUTORIAL_LEVEL, startTutorial } from "./tutorial.js";
import { accountNote, signedInName } from "./account.js";
import { clockChoice } from "../clock.js";
import { roomApi } from "./chat.js";

/** "Play now"'s choices: any count, or one of them. */
const PLAY_NOW_CHOICES = ["any", "2", "3", "4", "5", "6"];

const SEAT_CHOICES = ["human", "easy", "medium", "hard"];

function seatLabel(choice) {
  return choice === "human" ? t("lobby.human") : `${t("lobby.bot")} · ${t(`lobby.level.${choice}`)}`;
}

/** A name input bound to the remembered display name. */
export function nameInput(id) {
  return h("input", {
    id, type: "text", maxlength: 24, autocomplete: "nickname", value: savedName(),
    placeholder: t("lobby.your_name"), required: true,
  });
}

/** The trimmed name, remembered, or null (with a message) when empty. */
export function readName(input, onError) {
  const name = input.value.trim();
  if (!name) {
    onError(t("lobby.name_required"));
    input.focus();
    return null;
  }
  rememberName(name);
  return name;
}

export class LobbyPage {
  /** @param {HTMLElement} root @param {(path: string) => void} navigate */
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.seats = ["human", "easy", "easy"];
    this.variants = new Set();
    this.tables = [];
    this.error = "";
    this.timer = null;
  }

  async start() {
    this.render();
    await this.refresh();
    this.timer = setInterval(() => this.refresh(), 4000);
  }

  stop() {
    clearInterval(this.timer);
    this.queued?.abort(); // leaving the lobby leaves the queue
  }

  async refresh() {
    try {
      const { tables } = await api.tables();
      this.tables = tables;
    } catch {
      this.tables = [];
    }
    this.renderTables();
  }

  render() {
    this.nameBox = nameInput("player-name");
    signedInName(this.nameBox); // a signed-in player sits under the account's name
    this.errorBox = h("div", { role: "alert" });
    this.seatBox = h("ol", { class: "seat-list" });
    this.tableBox = h("div", { "data-testid": "table-list" });
    mount(this.root,
      h("div", { class: "lobby" },
        this.#playNowPanel(),
        h("section", { class: "panel learn", "aria-labelledby": "learn-title" },
          h("h2", { id: "learn-title" }, t("tutorial.learn")),
          h("p", { class: "muted" }, t("tutorial.learn_hint")),
          h("button", { type: "button", "data-testid": "learn", onclick: () => this.#learn() }, t("tutorial.start"))),
        h("section", { class: "panel", "aria-labelledby": "create-title" },
          h("h2", { id: "create-title" }, t("lobby.create")),
          accountNote(),
          this.errorBox,
          h("label", { for: "player-name" }, t("lobby.your_name"), this.nameBox),
          h("h3", {}, t("lobby.seats")),
          this.seatBox,
          h("div", { class: "row-inline" },
            h("button", { type: "button", class: "secondary", "data-testid": "add-seat", onclick: () => this.#resize(1) }, `+ ${t("lobby.add_seat")}`),
            h("button", { type: "button", class: "secondary", "data-testid": "remove-seat", onclick: () => this.#resize(-1) }, `− ${t("lobby.remove_seat")}`)),
          // the optional settings fold away, so "Create" is on the first screen
          h("details", { class: "more-options", "data-testid": "more-options", open: this.variants.size > 0 },
            h("summary", {}, t("lobby.more_options")),
            variantChoices(this.variants),
            (this.clock = clockChoice()).element,
            h("label", { class: "toggle chat-choice", for: "chat-on" },
              (this.chatOn = h("input", { type: "checkbox", id: "chat-on", "data-testid": "chat-on", checked: true })),
              t("chat.allow"))),
          h("div", { class: "row-inline" },
            h("button", { type: "button", "data-testid": "create", onclick: () => this.#create() }, t("lobby.create")))),
        h("section", { class: "panel", "aria-labelledby": "tables-title" },
          h("h2", { id: "tables-title" }, t("lobby.open_tables")),
          this.tableBox)));
    this.renderSeats();
    this.renderTables();
  }

  #playNowPanel() {
    this.playNowBox = h("div", { class: "row-inline" });
    this.playNowPanel = h("section", { class: "panel play-now", "aria-labelledby": "play-now-title", "data-testid": "play-now-panel" },
      h("h2", { id: "play-now-title" }, t("playnow.title")),
      h("p", { class: "muted" }, t("playnow.hint")),
      this.playNowBox);
    this.#renderPlayNow();
    return this.playNowPanel;
  }

  #renderPlayNow(error = "") {
    if (this.queued) {
      mount(this.playNowBox,
        h("span", { role: "status", "data-testid": "play-now-waiting" }, t("playnow.waiting")),
        h("button", { type: "button", class: "secondary", "data-testid": "play-now-cancel", onclick: () => this.queued?.abort() }, t("playnow.cancel")));
      return;
    }
    const count = h("select", { id: "play-now-count", "data-testid": "play-now-count" },
      PLAY_NOW_CHOICES.map((c) => h("option", { value: c, selected: c === (this.playNowCount ?? "any") },
        c === "any" ? t("playnow.any") : t("playnow.players", { n: c }))));
    count.addEventListener("change", () => { this.playNowCount = count.value; });
    mount(this.playNowBox,
      h("label", { for: "play-now-count" }, t("playnow.how_many"), count),
      h("button", { type: "button", "data-testid": "play-now", onclick: () => this.#playNow() }, t("playnow.button")),
      error ? h("div", { class: "error-banner", role: "alert" }, error) : null);
  }

  async #playNow() {
    const showError = (m) => this.#renderPlayNow(m);
    const name = readName(this.nameBox, showError);
    if (!name) return;
    const choice = this.playNowCount ?? "any";
    const players = choice === "any" ? [2, 3, 4, 5, 6] : Number(choice);
    this.queued = new AbortController();
    this.#renderPlayNow();
    try {
      const res = await roomApi.playNow(players, name, this.queued.signal);
      this.queued = null;
      saveSeat(res.table.id, res.seat, res.token);
      this.navigate(`/t/${res.table.id}`);
    } catch (e) {
      const aborted = this.queued?.signal.aborted;
      this.queued = null;
      this.#renderPlayNow(aborted ? "" : e.message);
    }
  }

  renderSeats() {
    mount(this.seatBox, this.seats.map((choice, i) =>
      h("li", {},
        h("label", { class: "toggle", for: `seat-${i}` },
          h("span", { class: "seat-no" }, t("lobby.seat", { n: i + 1 })),
          h("select", {
              id: `seat-${i}`, "data-testid": `seat-${i}`,
              onchange: (e) => { this.seats[i] = e.target.value; },
            },
            SEAT_CHOICES.map((c) => h("option", { value: c, selected: c === choice }, seatLabel(c))))),
        i === 0 && choice === "human" ? h("span", { class: "muted" }, `(${t("lobby.you")})`) : null)));
  }

  renderTables() {
    if (!this.tableBox) return;
    const open = this.tables.filter((tb) => tb.status === "open");
    // a first-game guide is a learner's own table: not offered to watch
    const playing = this.tables.filter((tb) => tb.status === "playing" && !tb.seats.some((x) => x.level === TUTORIAL_LEVEL));
    const item = (tb) => {
      const taken = tb.seats.filter((s) => s.taken).length;
      const names = tb.seats.map((s) => (s.name ? displayName(s.name) : `(${t("lobby.free_seat")})`)).join(", ");
      return h("li", { dataset: { table: tb.id } },
        h("span", {}, h("strong", {}, `${taken}/${tb.players}`), " ", names, tb.variants?.length ? [" ", variantBadge(tb.variants)] : null,
          tb.turn_based ? [" ", h("span", { class: "pill turn-based", "data-testid": "turn-based" }, t("clock.turn_based"))] : null),
        h("span", { class: "row-inline" },
          tb.status === "open"
            ? h("button", { type: "button", onclick: () => this.navigate(tb.invite_url) }, t("lobby.join"))
            : null,
          h("button", { type: "button", class: "secondary", onclick: () => this.navigate(`/t/${tb.id}?watch=1`) }, t("lobby.watch"))));
    };
    mount(this.tableBox,
      open.length ? h("ul", { class: "table-list" }, open.map(item)) : h("p", { class: "muted" }, t("lobby.no_tables")),
      playing.length ? [h("h3", {}, t("lobby.playing_tables")), h("ul", { class: "table-list" }, playing.map(item))] : null);
  }

  #resize(delta) {
    const n = this.seats.length + delta;
    if (n < 2 || n > 6) return;
    if (delta > 0) this.seats.push("easy");
    else this.seats.pop();
    this.renderSeats();
  }

  async #learn() {
    try {
      await startTutorial(this.navigate);
    } catch (e) {
      mount(this.errorBox, h("div", { class: "error-banner" }, e.message));
    }
  }

  async #create() {
    const showError = (m) => mount(this.errorBox, h("div", { class: "error-banner" }, m));
    const hasHuman = this.seats.includes("human");
    const name = hasHuman ? readName(this.nameBox, showError) : null;
    if (hasHuman && !name) return;
    const seats = this.seats.map((c) => (c === "human" ? { kind: "human" } : { kind: "bot", level: c }));
    try {
      const res = await api.create(seats, name ?? undefined, { variants: VARIANTS.filter((v) => this.variants.has(v)), ...this.clock.value(), chat: this.chatOn.checked });
      saveSeat(res.table.id, res.seat, res.token);
      this.navigate(`/t/${res.table.id}${res.token ? "" : "?watch=1"}`);
    } catch (e) {
      showError(e.message);
    }
  }
}
