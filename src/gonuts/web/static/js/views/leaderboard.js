// /leaderboard: accounts with a rated game, best rating first, 50 to a page.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { accountApi, profilePath, refreshAccount } from "./account.js";

const PAGE = 50;

export class LeaderboardPage {
  /** @param {HTMLElement} root @param {(path: string) => void} navigate */
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.offset = 0;
  }

  start() {
    refreshAccount(); // a game may have been rated since the header was drawn
    this.load();
  }

  stop() {}

  async load() {
    const body = h("div", { "data-testid": "leaderboard" }, h("p", { class: "muted" }, t("app.loading")));
    mount(this.root,
      h("section", { class: "panel", "aria-labelledby": "leaderboard-title" },
        h("h2", { id: "leaderboard-title" }, t("leaderboard.title")),
        h("p", { class: "muted" }, t("leaderboard.about")),
        body));
    let board;
    try {
      board = await accountApi.leaderboard(PAGE, this.offset);
    } catch (e) {
      mount(body, h("div", { class: "error-banner" }, e.message));
      return;
    }
    if (!board.players.length) {
      mount(body, h("p", { class: "muted" }, t("leaderboard.empty")));
      return;
    }
    const page = (delta) => () => {
      this.offset = Math.max(0, this.offset + delta);
      this.load();
    };
    mount(body,
      h("table", { class: "leaderboard" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("leaderboard.rank")),
          h("th", { scope: "col" }, t("leaderboard.player")),
          h("th", { scope: "col", class: "num" }, t("leaderboard.rating")),
          h("th", { scope: "col", class: "num" }, t("leaderboard.games")),
          h("th", { scope: "col", class: "num" }, t("leaderboard.wins")))),
        h("tbody", {}, board.players.map((p, i) =>
          h("tr", { dataset: { player: p.name } },
            h("td", {}, String(board.offset + i + 1)),
            h("td", {}, h("a", { href: profilePath(p.name), "data-link": "" }, p.name)),
            h("td", { class: "num" }, String(p.rating)),
            h("td", { class: "num" }, String(p.games)),
            h("td", { class: "num" }, String(p.wins)))))),
      board.total > PAGE
        ? h("div", { class: "row-inline" },
            h("button", { type: "button", class: "secondary", disabled: board.offset === 0, onclick: page(-PAGE) }, t("leaderboard.prev")),
            h("button", { type: "button", class: "secondary", disabled: board.offset + PAGE >= board.total, onclick: page(PAGE) }, t("leaderboard.next")))
        : null);
  }
}
