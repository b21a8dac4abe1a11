// The end screen: the winner(s), each player's score breakdown, "play again", "review this game".

import { api } from "../api.js";
import { trophy } from "../cards.js";
import { h } from "../dom.js";
import { describeEvent } from "../events.js";
import { cardName, listJoin, t } from "../i18n.js";

/**
 * @param {object} view  the final view
 * @param {string[]} names
 * @param {{player: number, total: number, cards: number, lines: {kind: string, count: number, points: number, reason?: string}[]}[]|undefined} breakdown
 * @param {(() => void)|undefined} playAgain
 * @param {string|null} [gameId]  for the record download link
 * @param {object[]} [lastRound]  the last round's events, kept on screen
 * @param {{rating: number, change: number}|null} [rating]  my new rating (a rated game)
 */
export function endScreen(view, names, breakdown, playAgain, gameId = null, lastRound = [], rating = null) {
  const winners = view.winners ?? [];
  const rows = breakdown ?? names.map((_, p) => ({
    player: p,
    total: view.scores[p],
    cards: Object.values(view.collections[p] ?? {}).reduce((a, b) => a + b, 0),
    lines: Object.entries(view.collections[p] ?? {}).map(([kind, count]) => ({ kind, count, points: null })),
  }));
  const order = [...rows].sort((a, b) => b.total - a.total || b.cards - a.cards);
  const winnerNames = listJoin(winners.map((p) => names[p]));
  return h("section", { class: "end-screen panel", "data-testid": "end-screen" },
    h("p", { class: "muted end-title" }, t("end.title")),
    h("h2", {}, trophy(28), " ", winners.length > 1 ? t("end.winners", { names: winnerNames }) : t("end.winner", { names: winnerNames })),
    h("p", { "data-testid": "end-why" }, t("end.why")),
    tieBreak(rows, winners, names),
    rating
      ? h("p", { class: "rating-change", "data-testid": "rating-change" },
          t("end.rating", { rating: rating.rating, change: `${rating.change >= 0 ? "+" : "−"}${Math.abs(rating.change)}` }))
      : null,
    h("table", { class: "breakdown" },
      h("thead", {}, h("tr", {},
        h("th", {}, t("end.player")), h("th", {}, t("end.breakdown")),
        h("th", {}, t("end.cards")), h("th", {}, t("end.total")))),
      h("tbody", {}, order.map((r) =>
        h("tr", { class: winners.includes(r.player) ? "winner" : "", dataset: { seat: r.player } },
          h("td", {}, h("strong", {}, names[r.player]), winners.includes(r.player) ? [" ", trophy(18)] : null),
          h("td", {}, h("ul", {}, r.lines.map((line) =>
            h("li", {},
              `${cardName(line.kind)} ×${line.count}`,
              line.points === null || line.points === undefined ? "" : `: ${line.points > 0 ? "+" : ""}${line.points}`,
              line.reason ? h("span", { class: "muted" }, ` (${line.reason})`) : null)))),
          h("td", {}, r.cards),
          h("td", { class: "total", "data-testid": `final-${r.player}` }, r.total))))),
    h("p", { class: "row-inline" },
      playAgain
        ? h("button", { type: "button", onclick: playAgain, "data-testid": "play-again" }, t("end.play_again"))
        : null,
      gameId
        ? h("a", { class: "button secondary", href: api.recordUrl(gameId), download: `gonuts-${gameId}.json` }, t("end.download"))
        : null,
      gameId
        ? h("a", { class: "button secondary", href: `/replay/${encodeURIComponent(gameId)}?review=1`, "data-link": "", "data-testid": "review-game" }, t("end.review"))
        : null,
      playAgain ? h("a", { class: "button secondary", href: "/", "data-link": "" }, t("end.back")) : null),
    lastRound.length
      ? h("details", { class: "last-round", open: true, "data-testid": "last-round" },
          h("summary", {}, t("end.last_round")),
          h("ul", { class: "log" }, lastRound.map((e) => h("li", {}, describeEvent(e)))))
      : null,
  );
}

/** Why the winner won a tie on points (RULES.md: the most cards breaks it), or that it stands. */
function tieBreak(rows, winners, names) {
  if (!rows.length) return null;
  const top = Math.max(...rows.map((r) => r.total));
  const tied = rows.filter((r) => r.total === top);
  if (tied.length < 2) return null;
  const tiedNames = listJoin(tied.map((r) => names[r.player]));
  const most = Math.max(...tied.map((r) => r.cards));
  const text = winners.length === 1
    ? t("end.tiebreak_won", { names: tiedNames, score: top, winner: names[winners[0]], cards: most })
    : t("end.tiebreak_shared", { names: listJoin(winners.map((p) => names[p])), score: top, cards: most });
  return h("p", { class: "tie-break", "data-testid": "tie-break" }, text);
}
