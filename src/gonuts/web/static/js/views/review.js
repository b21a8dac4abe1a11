// Game review in a replay: ask the server to review a finished game (POST, then poll the GET),
// then show each seat's accuracy, the win-probability graph (SVG, with a table for screen readers
// and a marker at the step shown), the decisions with their labels (a move list that steps the
// replay), and for the step shown what was taken and what the analyser preferred.
// docs/review.md, "In the browser"; docs/protocol.md, "Game review".

import { ApiError } from "../api.js";
import { describeAction } from "../actions.js";
import { h, mount, s } from "../dom.js";
import { currentLanguage, displayName, t } from "../i18n.js";

const POLL_MS = 700;
/** The seats' line colours (dark enough on white: each at least 3:1 against the panel). */
const SEAT_COLOURS = ["#b83d72", "#2a62b0", "#2f7a3a", "#8a5a00", "#6e44a8", "#4d4d4d"];
const GOOD = new Set(["best", "excellent", "good"]);

async function call(method, gameId) {
  const url = `/api/games/${encodeURIComponent(gameId)}/review?lang=${currentLanguage()}`;
  const res = await fetch(url, { method, headers: { Accept: "application/json" } });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  return data;
}

const percent = (p) => `${Math.round(p * 100)}%`;

/** A seat's name in its line's colour (a class: the page's CSP allows no inline styles). */
function seatName(seat, name) {
  return h("span", { class: `review-seat review-seat-${seat % SEAT_COLOURS.length}` }, name);
}

/** The label as a small chip (its colour from its band; the word is always written). */
export function labelChip(label) {
  return h("span", { class: `review-label review-${label}`, "data-label": label }, t(`review.label_${label}`));
}

export class ReviewPanel {
  /**
   * @param {string} gameId  a finished game on the server
   * @param {{players: string[], record: {actions: {player: number, action: string}[]}}} replay
   * @param {(step: number) => void} goTo  show a step of the replay
   */
  constructor(gameId, replay, goTo) {
    this.gameId = gameId;
    this.replay = replay;
    this.goTo = goTo;
    this.names = replay.players.map(displayName);
    this.review = null;
    this.step = 0;
    this.timer = null;
    this.stopped = false;
    this.body = h("div", { class: "review-body" });
    this.status = h("p", { class: "review-status", role: "status", "aria-live": "polite", "data-testid": "review-status" });
    this.element = h("section", { class: "panel review", "data-testid": "review", "aria-labelledby": "review-title" },
      h("h3", { id: "review-title" }, t("review.title")), this.status, this.body);
  }

  /** Show what the server has (a review done before is shown at once); `ask`: request it. */
  async start(ask = false) {
    try {
      const state = await call("GET", this.gameId);
      if (state.status === "none" && ask) return this.request();
      this.#show(state);
    } catch (e) {
      this.#error(e);
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async request() {
    mount(this.status, t("review.starting"));
    mount(this.body);
    try {
      this.#show(await call("POST", this.gameId));
    } catch (e) {
      this.#error(e);
    }
  }

  #poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (this.stopped || !this.element.isConnected) return;
      try {
        this.#show(await call("GET", this.gameId));
      } catch (e) {
        this.#error(e);
      }
    }, POLL_MS);
  }

  #show(state) {
    if (this.stopped) return;
    if (state.status === "running") {
      mount(this.status, state.total
        ? t("review.progress", { done: state.done, total: state.total })
        : t("review.starting"));
      mount(this.body, h("progress", {
        max: Math.max(1, state.total), value: state.done, "aria-label": t("review.title"), "data-testid": "review-progress",
      }));
      this.#poll();
    } else if (state.status === "done" && state.review) {
      this.review = state.review;
      // (non-breaking hyphens: a phone wrapped "neural-mixed:128" after "neural-")
      mount(this.status, t("review.by", { analyser: state.analyser.replaceAll("-", "\u2011") }));
      this.#render();
    } else {
      mount(this.status, state.status === "failed" ? t("review.failed") : t("review.explain"));
      mount(this.body, h("button", { type: "button", "data-testid": "review-request", onclick: () => this.request() },
        t("review.request")));
    }
  }

  #error(e) {
    // a busy server says so in the player's language; they may try again
    mount(this.status, h("span", { class: "error-banner", role: "alert", "data-testid": "review-error" }, e.message));
    // (a server without the analyser will not have one a minute later: no retry then)
    mount(this.body, e?.code === "review_unavailable" ? null
      : h("button", { type: "button", class: "secondary", "data-testid": "review-request", onclick: () => this.request() },
          t("review.retry")));
  }

  #render() {
    const review = this.review;
    this.byStep = new Map(review.decisions.map((d) => [d.index + 1, d]));
    this.line = h("p", { class: "review-line", "aria-live": "polite", "data-testid": "review-line" });
    this.moves = h("ol", { class: "review-moves", "data-testid": "review-moves", "aria-label": t("review.moves") },
      review.decisions.map((d) => h("li", { dataset: { step: d.index + 1 } },
        h("button", { type: "button", class: "review-move", onclick: () => this.goTo(d.index + 1) },
          h("span", { class: "muted" }, t("review.round", { round: d.round })), " ",
          seatName(d.seat, this.names[d.seat]),
          ": ", describeAction(d.action, this.names), " ",
          labelChip(d.label)))));
    mount(this.body,
      this.#accuracy(review),
      this.line,
      h("div", { class: "review-grid" }, this.#graph(review), this.moves));
    this.showStep(this.step);
  }

  #accuracy(review) {
    return h("table", { class: "review-accuracy", "data-testid": "review-accuracy" },
      h("caption", { class: "sr-only" }, t("review.accuracy")),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("end.player")), h("th", { scope: "col" }, t("review.accuracy")),
        h("th", { scope: "col" }, t("review.good_moves")), h("th", { scope: "col" }, t("review.bad_moves")))),
      h("tbody", {}, review.players.map((p) => {
        const bad = ["inaccuracy", "mistake", "blunder"].filter((l) => p.counts[l]);
        return h("tr", {},
          h("th", { scope: "row" }, seatName(p.seat, this.names[p.seat])),
          h("td", { "data-testid": `review-accuracy-${p.seat}` }, review.accuracy[p.seat] == null ? "–" : review.accuracy[p.seat].toFixed(1)),
          h("td", {}, String(["best", "excellent", "good"].reduce((n, l) => n + (p.counts[l] ?? 0), 0))),
          h("td", { class: "review-bad" }, bad.length ? bad.map((l) => h("span", { class: "review-count" }, labelChip(l), ` ×${p.counts[l]}`)) : "–"));
      })));
  }

  /** Each seat's chance of winning at the start of every round and at the end: one line per
   * seat, a marker at the round shown, a title and a description, and the same as a table. */
  #graph(review) {
    const points = review.graph;
    const W = 560, H = 180, L = 52, R = 10, T = 10, B = 24;
    const x = (i) => L + (points.length < 2 ? 0 : (i * (W - L - R)) / (points.length - 1));
    const y = (p) => T + (1 - p) * (H - T - B);
    const grid = [0, 0.25, 0.5, 0.75, 1].map((p) => [
      s("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), class: "review-gridline" }),
      s("text", { x: L - 4, y: y(p) + 4, class: "review-axis", "text-anchor": "end" }, document.createTextNode(percent(p))),
    ]);
    const every = Math.max(1, Math.ceil(points.length / 8));
    const last = points.length - 1;
    // a round's number every few rounds, none crowding the last point's
    const rounds = points.map((pt, i) => (i === last || (i % every === 0 && x(last) - x(i) > 28))
      ? s("text", { x: x(i), y: H - 6, class: "review-axis", "text-anchor": pt.end ? "end" : "middle" },
          document.createTextNode(pt.end ? t("review.end_short") : String(pt.round)))
      : null);
    const lines = review.players.map((p) => s("polyline", {
      points: points.map((pt, i) => `${x(i).toFixed(1)},${y(pt.win_prob[p.seat]).toFixed(1)}`).join(" "),
      fill: "none", stroke: SEAT_COLOURS[p.seat % SEAT_COLOURS.length], "stroke-width": 2.5,
      "stroke-dasharray": ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 2"][p.seat % 6], "data-seat": p.seat,
    }));
    this.marker = s("line", { x1: L, x2: L, y1: T, y2: H - B, class: "review-marker" });
    this.graphX = x;
    const leaders = review.players.map((p) => `${this.names[p.seat]} ${percent(points.at(-1)?.win_prob[p.seat] ?? 0)}`).join(", ");
    const svg = s("svg", {
      viewBox: `0 0 ${W} ${H}`, role: "img", class: "review-graph", "aria-labelledby": "review-graph-title review-graph-desc",
      "data-testid": "review-graph",
    },
    s("title", { id: "review-graph-title" }, document.createTextNode(t("review.graph"))),
    s("desc", { id: "review-graph-desc" }, document.createTextNode(t("review.graph_desc", { rounds: points.filter((p) => !p.end).length, end: leaders }))),
    ...grid.flat(), ...rounds, ...lines, this.marker);
    const legend = h("ul", { class: "review-legend" }, review.players.map((p) =>
      h("li", {}, s("svg", { viewBox: "0 0 24 8", width: 24, height: 8, "aria-hidden": "true" },
        s("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: SEAT_COLOURS[p.seat % SEAT_COLOURS.length], "stroke-width": 2.5,
          "stroke-dasharray": ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 2"][p.seat % 6] })), " ", this.names[p.seat])));
    const table = h("details", { class: "review-table" },
      h("summary", {}, t("review.graph_table")),
      h("table", { "data-testid": "review-graph-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("review.round_col")),
          review.players.map((p) => h("th", { scope: "col" }, this.names[p.seat])))),
        h("tbody", {}, points.map((pt) => h("tr", {},
          h("th", { scope: "row" }, pt.end ? t("review.end") : String(pt.round)),
          pt.win_prob.map((w) => h("td", {}, percent(w))))))));
    return h("figure", { class: "review-figure" }, svg, legend, table);
  }

  /** The replay shows step `step` (0: the deal; step i+1 is the record's action i). */
  showStep(step) {
    this.step = step;
    if (!this.review || !this.line) return;
    const d = this.byStep.get(step);
    for (const li of this.moves.children) {
      const here = Number(/** @type {HTMLElement} */ (li).dataset.step) === step;
      li.classList.toggle("current", here);
      if (here) li.setAttribute("aria-current", "step");
      else li.removeAttribute("aria-current");
      if (here) this.#scrollTo(/** @type {HTMLElement} */ (li));
    }
    // the marker: at the last graph point whose round has begun by this step
    const round = this.replay.steps?.[step]?.view?.round ?? 1;
    const over = this.replay.steps?.[step]?.view?.over;
    let at = 0;
    this.review.graph.forEach((pt, i) => { if ((pt.end && over) || (!pt.end && pt.round <= round)) at = i; });
    const mx = this.graphX(at).toFixed(1);
    this.marker.setAttribute("x1", mx);
    this.marker.setAttribute("x2", mx);
    mount(this.line, d ? this.#explain(d) : t("review.no_decision"));
  }

  /** Scroll the move list (only it: never the page) to show `li`. */
  #scrollTo(li) {
    const list = this.moves;
    const top = li.offsetTop;
    if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }

  /** One line: what the seat took and its chance, what the analyser preferred and why. */
  #explain(d) {
    const vars = {
      player: this.names[d.seat],
      action: describeAction(d.action, this.names),
      best: describeAction(d.best, this.names),
      win: percent(d.win_prob),
      best_win: percent(d.best_win_prob),
    };
    const text = d.action === d.best ? t("review.line_best", vars)
      : GOOD.has(d.label) ? t("review.line_close", vars)
      : Math.round(d.best_win_prob * 100) > Math.round(d.win_prob * 100) ? t("review.line_worse", vars)
      : t("review.line_margin", vars);
    return [labelChip(d.label), " ", text];
  }
}
