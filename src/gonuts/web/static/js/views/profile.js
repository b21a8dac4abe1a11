// /players/{name}: a player's rating, its history as a chart (inline SVG drawn here, no
// library) and their recent games with links to the replays (a deleted player's seats under
// "Deleted player", in this language: displayName); the owner gets a link to their controls.

import { h, mount, s } from "../dom.js";
import { displayName, t } from "../i18n.js";
import { accountApi, knownAccount, refreshAccount } from "./account.js";

const W = 640;
const H = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

/** The rating before the first rated game, then after each one. */
function points(history) {
  if (!history.length) return [];
  return [history[0].rating - history[0].change, ...history.map((p) => p.rating)];
}

/** A line chart of `values` (one per game), with its lowest and highest values on the axis. */
export function ratingChart(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 20) {
    lo -= 10;
    hi += 10;
  }
  const x = (i) => PAD.left + (values.length === 1 ? 0 : (i * (W - PAD.left - PAD.right)) / (values.length - 1));
  const y = (v) => PAD.top + ((hi - v) * (H - PAD.top - PAD.bottom)) / (hi - lo);
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const label = t("profile.chart_desc", { games: values.length - 1, min: Math.min(...values), max: Math.max(...values) });
  return s("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": label, "data-testid": "rating-chart",
    },
    s("line", { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: "axis" }),
    s("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: "axis" }),
    s("text", { x: PAD.left - 6, y: y(hi) + 4, "text-anchor": "end", class: "tick" }, String(Math.round(hi))),
    s("text", { x: PAD.left - 6, y: y(lo) + 4, "text-anchor": "end", class: "tick" }, String(Math.round(lo))),
    s("text", { x: (W + PAD.left) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, t("profile.chart_axis")),
    s("polyline", { points: line, class: "rating-line", fill: "none" }),
    values.map((v, i) =>
      s("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3.5, class: "rating-dot" },
        s("title", {}, `${i === 0 ? t("profile.start") : t("profile.after_game", { n: i })}: ${v}`))));
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

export class ProfilePage {
  /** @param {HTMLElement} root @param {string} name @param {(path: string) => void} navigate */
  constructor(root, name, navigate) {
    this.root = root;
    this.name = name;
    this.navigate = navigate;
  }

  stop() {}

  async start() {
    refreshAccount(); // a game may have been rated since the header was drawn
    mount(this.root, h("section", { class: "panel" }, h("p", { class: "muted" }, t("app.loading"))));
    let p;
    try {
      p = await accountApi.player(this.name);
    } catch (e) {
      mount(this.root, h("section", { class: "panel" },
        h("div", { class: "error-banner", role: "alert" }, e.message),
        h("a", { href: "/leaderboard", "data-link": "" }, t("leaderboard.title"))));
      return;
    }
    const values = points(p.history);
    mount(this.root,
      h("section", { class: "panel profile", "aria-labelledby": "profile-title", "data-testid": "profile" },
        h("h2", { id: "profile-title" }, p.name),
        h("dl", { class: "profile-stats" },
          h("div", {}, h("dt", {}, t("profile.rating")), h("dd", { "data-testid": "profile-rating" }, String(p.rating))),
          h("div", {}, h("dt", {}, t("profile.games")), h("dd", {}, String(p.games))),
          h("div", {}, h("dt", {}, t("profile.wins")), h("dd", {}, String(p.wins)))),
        h("p", { class: "muted" }, t("profile.member_since", { date: new Date(p.member_since).toLocaleDateString(document.documentElement.lang) })),
        knownAccount()?.name === p.name
          ? h("p", {}, h("a", { href: "/account", "data-link": "", "data-testid": "manage-account" }, t("account.manage_title")))
          : null,
        h("h3", {}, t("profile.chart")),
        values.length ? ratingChart(values) : h("p", { class: "muted" }, t("profile.no_history"))),
      h("section", { class: "panel", "aria-labelledby": "recent-title" },
        h("h3", { id: "recent-title" }, t("profile.recent")),
        p.recent_games.length
          ? h("ul", { class: "table-list", "data-testid": "recent-games" }, p.recent_games.map((g) =>
              h("li", { dataset: { game: g.id } },
                h("span", {},
                  g.players.map((name, i) => `${i === g.seat ? p.name : displayName(name)} ${g.scores[i] ?? ""}${g.winners.includes(i) ? " ★" : ""}`).join(" · "),
                  h("span", { class: "muted" }, ` — ${new Date(g.finished_at).toLocaleString(document.documentElement.lang)}`),
                  " ",
                  g.rating_change === null
                    ? h("span", { class: "muted" }, `(${t("profile.unrated")})`)
                    : h("span", { class: g.rating_change >= 0 ? "gain" : "loss" }, signed(g.rating_change))),
                h("a", { class: "button secondary", href: g.replay_url, "data-link": "" }, t("profile.replay"))))
          )
          : h("p", { class: "muted" }, t("profile.no_games"))));
  }
}
