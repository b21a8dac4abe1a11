// Replays: the finished games, and a viewer that steps forwards and backwards through a record.

import { api } from "../api.js";
import { h, mount, s } from "../dom.js";
import { displayName, t } from "../i18n.js";

/** Media-control icons drawn in SVG (the ⏮ ⏭ characters render as empty boxes without an emoji
 * or symbol font). */
const ICON_PATHS = {
  first: "M6 5h2v14H6zM19 5v14L9 12z",
  prev: "M16 5v14L6 12z",
  next: "M8 5v14l10-7z",
  last: "M16 5h2v14h-2zM5 5v14l10-7z",
};

function icon(name) {
  return s("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", focusable: "false", class: "icon" },
    s("path", { d: ICON_PATHS[name], fill: "currentColor" }));
}
import { TableScreen } from "./table.js";
import { ReviewPanel } from "./review.js";
import { variantBadge } from "../variants.js";
import { chatLog } from "./chat.js";

export class ReplayListPage {
  /** @param {HTMLElement} root @param {(path: string) => void} navigate */
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
  }

  async start() {
    const errorBox = h("div", { role: "alert" });
    const file = h("input", { type: "file", accept: ".json,application/json", id: "record-file", "data-testid": "record-file" });
    file.addEventListener("change", async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      try {
        const replay = await api.uploadReplay(await chosen.text());
        const viewer = new ReplayViewer(this.root, replay, null);
        viewer.start();
      } catch (e) {
        mount(errorBox, h("div", { class: "error-banner" }, e.message));
      }
    });
    const list = h("div", { "data-testid": "games" }, h("p", { class: "muted" }, t("app.loading")));
    mount(this.root,
      h("section", { class: "panel" },
        h("h2", {}, t("replay.title")),
        errorBox,
        h("label", { for: "record-file" }, t("replay.upload"), file),
        list));
    try {
      const { games } = await api.games();
      mount(list, games.length
        ? h("ul", { class: "table-list" }, games.map((g) =>
            h("li", {},
              h("span", {},
                g.players.map((name, p) => `${displayName(name)} ${g.scores[p] ?? ""}${g.winners.includes(p) ? " ★" : ""}`).join(" · "),
                g.finished_at ? h("span", { class: "muted" }, ` — ${new Date(g.finished_at).toLocaleString()}`) : null),
              h("span", { class: "row-inline" },
                h("button", { type: "button", onclick: () => this.navigate(`/replay/${g.id}`) }, t("replay.open")),
                h("a", { class: "button secondary", href: api.recordUrl(g.id), download: `gonuts-${g.id}.json` }, t("replay.download"))))))
        : h("p", { class: "muted" }, t("replay.none")));
    } catch (e) {
      mount(list, h("div", { class: "error-banner" }, e.message));
    }
  }

  stop() {}
}

/** Loads /replay/{id} from the server. */
export class ReplayPage {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
  }

  async start() {
    try {
      const replay = await api.replay(this.gameId);
      this.viewer = new ReplayViewer(this.root, replay, this.gameId);
      // "Review this game" on the end screen opens the replay with ?review=1: start it at once
      this.viewer.start({ review: new URLSearchParams(location.search).has("review") });
      this.root.append(chatLog(this.gameId)); // what the players said (views/chat.js)
    } catch (e) {
      // An unknown id is a missing game (the server's code names a table, its shared store).
      const message = e?.status === 404 ? t("replay.not_found") : e.message;
      mount(this.root, h("div", { class: "error-banner", role: "alert", "data-testid": "replay-error" }, message),
        h("a", { href: "/replays", "data-link": "" }, t("replay.title")));
    }
  }

  stop() {
    this.viewer?.stop();
  }
}

export class ReplayViewer {
  /** @param {HTMLElement} root @param {any} replay REPLAY (docs/protocol.md) @param {string|null} gameId */
  constructor(root, replay, gameId) {
    this.root = root;
    this.replay = replay;
    this.gameId = gameId;
    this.index = 0;
    this.timer = null;
    // The public event log up to each step, to show any step directly.
    this.logs = [];
    let log = [];
    for (const step of replay.steps) {
      log = [...log, ...(step.events ?? [])];
      this.logs.push(log);
    }
  }

  /** @param {{review?: boolean}} [options]  `review`: ask for the game's review at once */
  start({ review = false } = {}) {
    const last = this.replay.steps.length - 1;
    this.slider = h("input", {
      type: "range", min: 0, max: last, value: 0, "aria-label": t("replay.title"),
      oninput: (e) => this.show(Number(e.target.value), false),
    });
    this.label = h("span", { "data-testid": "replay-step" });
    this.playButton = h("button", { type: "button", class: "secondary", onclick: () => this.#togglePlay() }, t("replay.play"));
    const download = this.gameId
      ? h("a", { class: "button secondary", href: api.recordUrl(this.gameId), download: `gonuts-${this.gameId}.json` }, t("replay.download"))
      : h("button", { type: "button", class: "secondary", onclick: () => this.#downloadUploaded() }, t("replay.download"));
    this.board = h("div");
    this.screen = new TableScreen(this.board, {}, { title: " ", latestOnly: true });
    // a finished game on the server can be reviewed (docs/review.md, "In the browser")
    this.review = this.gameId ? new ReviewPanel(this.gameId, this.replay, (i) => this.show(i, false)) : null;
    mount(this.root,
      h("section", { class: "panel", "data-testid": "replay-viewer" },
        h("h2", {}, t("replay.title"), ": ", this.replay.players.map(displayName).join(", ")),
        variantBadge(this.replay.record?.variants),
        h("div", { class: "replay-controls" },
          h("button", { type: "button", class: "secondary", "aria-label": t("replay.first"), "data-testid": "replay-first", onclick: () => this.show(0, false) }, icon("first")),
          h("button", { type: "button", class: "secondary", "data-testid": "replay-prev", onclick: () => this.show(this.index - 1, false) }, icon("prev"), t("replay.prev")),
          this.playButton,
          h("button", { type: "button", class: "secondary", "data-testid": "replay-next", onclick: () => this.show(this.index + 1, true) }, t("replay.next"), icon("next")),
          h("button", { type: "button", class: "secondary", "aria-label": t("replay.last"), "data-testid": "replay-last", onclick: () => this.show(last, false) }, icon("last")),
          this.slider,
          download),
        this.label,
        h("p", { class: "muted replay-keys" }, t("replay.keys"))),
      this.review?.element ?? null,
      this.board);
    this.show(0, false);
    this.review?.start(review);
    this.onKey = (e) => {
      if (!this.root.isConnected || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = /** @type {HTMLElement|null} */ (e.target);
      // the slider and text fields handle their own arrows
      if (target?.closest?.("input, select, textarea, dialog")) return;
      if (e.key === "ArrowRight") this.show(this.index + 1, true);
      else if (e.key === "ArrowLeft") this.show(this.index - 1, false);
      else if (e.key === "Home") this.show(0, false);
      else if (e.key === "End") this.show(this.replay.steps.length - 1, false);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", this.onKey);
  }

  stop() {
    clearInterval(this.timer);
    this.review?.stop();
    if (this.onKey) document.removeEventListener("keydown", this.onKey);
    this.screen?.destroy();
  }

  /** The game is over: show the picks made so far in step `i`'s round, which a live
   * spectator could not see (each step's actor and action say them). */
  #picksAt(i) {
    const view = this.replay.steps[i].view;
    if (view.phase !== "select") return view;
    const selections = [...(view.selections ?? view.players.map(() => null))];
    for (let j = i; j > 0; j--) {
      const step = this.replay.steps[j];
      // the step that began this round was made by the last action of the round before
      const began = (step.events ?? []).some((e) => e.type === "round_started");
      if (began || step.view.phase !== "select" || step.view.round !== view.round) break;
      const m = /^pick (\d+)$/.exec(step.action ?? "");
      if (m && step.actor !== null && selections[step.actor] == null) selections[step.actor] = Number(m[1]);
    }
    return { ...view, selections };
  }

  /** Show step `i`; `animate` plays that step's events (stepping forwards by one). */
  show(i, animate) {
    const steps = this.replay.steps;
    if (i < 0 || i >= steps.length) return;
    const step = steps[i];
    const forward = animate && i === this.index + 1;
    this.index = i;
    this.slider.value = String(i);
    this.label.textContent = `${t("replay.step", { i, n: steps.length - 1 })} — ${step.label ?? t("replay.deal")}`;
    this.review?.showStep(i);
    const over = step.view.over;
    // Always the whole log up to step i (so a superseded step costs nothing); forwards by one,
    // that step's own events are animated, and a newer click cancels the animation.
    const state = { view: this.#picksAt(i), events: this.logs[i], events_from: 0, full: true, reveal: forward ? step.events ?? [] : [] };
    this.screen.update({ ...state, breakdown: over ? this.replay.breakdown : null },
      { names: this.replay.players, breakdown: over ? this.replay.breakdown ?? undefined : undefined });
  }

  #togglePlay() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.textContent = t("replay.play");
      return;
    }
    this.playButton.textContent = t("replay.pause");
    this.timer = setInterval(() => {
      if (this.index >= this.replay.steps.length - 1) this.#togglePlay();
      else this.show(this.index + 1, true);
    }, 1500);
  }

  #downloadUploaded() {
    const blob = new Blob([JSON.stringify(this.replay.record, null, 2)], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: "gonuts-record.json" });
    document.body.append(a);
    a.click();
    a.remove();
  }
}
