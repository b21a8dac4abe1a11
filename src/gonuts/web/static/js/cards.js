// Donut cards: a small table of how each kind looks, and the card element itself.
// Names, points and power texts come from the language catalogue (i18n.js).

import { h, s } from "./dom.js";
import { cardName, cardPoints, cardPower, t } from "./i18n.js";

/**
 * id → [smallest player count (colour), has a ★ power, shape, dough colour, frosting colour].
 * The order is the rules table's order (RULES.md), which is also how collections are sorted.
 */
const KIND_TABLE = [
  ["chocolate_frosted", 2, true, "ring", "#d9a066", "#5b3417"],
  ["donut_holes", 2, false, "holes", "#d2a15e", "#f3d9a4"],
  ["eclair", 2, true, "bar", "#e8c07d", "#4a2a12"],
  ["french_cruller", 2, true, "cruller", "#e3b04b", "#f6e1a8"],
  ["glazed", 2, false, "ring", "#d9a066", "#f7e7b4"],
  ["jelly_filled", 2, false, "filled", "#e0b070", "#c0392b"],
  ["maple_bar", 2, false, "bar", "#e8c07d", "#b5651d"],
  ["plain", 2, false, "ring", "#d2a15e", null],
  ["powdered", 2, false, "ring", "#d9a066", "#fdfdfd"],
  ["boston_cream", 3, false, "filled", "#e8c07d", "#3b2314"],
  ["double_chocolate", 3, true, "ring", "#6b3a1c", "#2e1608"],
  ["red_velvet", 3, true, "ring", "#a4161a", "#f5f0e6"],
  ["sprinkled", 3, true, "sprinkles", "#d9a066", "#f7b2d0"],
  ["bear_claw", 4, true, "claw", "#d99a4e", "#e9c27d"],
  ["cinnamon_twist", 4, true, "twist", "#c87533", "#e8b27a"],
  ["coffee", 4, false, "cup", "#6f4e37", "#f4efe6"],
  ["day_old", 4, true, "ring", "#a89a84", "#8a7d6a"],
  ["milk", 4, true, "glass", "#ffffff", "#dfe9f3"],
  ["old_fashioned", 4, false, "cruller", "#c98b45", "#e2b36c"],
  ["maple_frosted", 5, false, "ring", "#d9a066", "#c68e17"],
  ["mucho_matcha", 5, false, "ring", "#d9a066", "#7fb34d"],
  ["raspberry_frosted", 5, true, "ring", "#d9a066", "#e30b5c"],
  ["strawberry_glazed", 5, true, "ring", "#d9a066", "#fc8db3"],
];

/** @type {Map<string, {id: string, min: number, power: boolean, shape: string, dough: string, top: string|null, order: number}>} */
export const KINDS = new Map(
  KIND_TABLE.map(([id, min, power, shape, dough, top], order) => [
    id,
    { id, min, power, shape, dough, top, order },
  ]),
);

export const COLOUR_NAMES = { 2: "green", 3: "pink", 4: "purple", 5: "blue" };

/** Kind ids of a collection ({kind: count}) in rules-table order. */
export function sortedKinds(collection) {
  return Object.keys(collection)
    .filter((k) => collection[k] > 0)
    .sort((a, b) => (KINDS.get(a)?.order ?? 99) - (KINDS.get(b)?.order ?? 99));
}

/** A small SVG drawing of a donut of this kind. */
export function donutArt(kind, size = 64) {
  const info = KINDS.get(kind) ?? { shape: "ring", dough: "#d9a066", top: "#f7e7b4" };
  const svg = s("svg", {
    viewBox: "0 0 64 64",
    width: size,
    height: size,
    class: "donut-art",
    "aria-hidden": "true",
    focusable: "false",
  });
  const { dough, top } = info;
  const ring = (cx, cy, r, hole, fill, stroke = "#00000022") =>
    s("path", {
      d: `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0z` +
        `M${cx - hole},${cy}a${hole},${hole} 0 1,1 ${2 * hole},0a${hole},${hole} 0 1,1 ${-2 * hole},0z`,
      fill,
      stroke,
      "fill-rule": "evenodd",
    });
  switch (info.shape) {
    case "holes":
      for (const [x, y] of [[20, 40], [44, 40], [32, 22]]) {
        svg.append(s("circle", { cx: x, cy: y, r: 11, fill: dough, stroke: "#00000022" }));
        svg.append(s("circle", { cx: x - 3, cy: y - 3, r: 3, fill: top }));
      }
      break;
    case "bar":
      svg.append(s("rect", { x: 6, y: 22, width: 52, height: 20, rx: 10, fill: dough }));
      svg.append(s("rect", { x: 9, y: 22, width: 46, height: 12, rx: 6, fill: top }));
      break;
    case "claw":
      svg.append(s("path", {
        d: "M8,44 Q10,18 32,16 Q54,18 56,44 L48,38 L42,46 L36,38 L30,46 L24,38 L18,46 Z",
        fill: dough, stroke: "#00000022",
      }));
      svg.append(s("path", { d: "M18,30 Q32,22 46,30", stroke: top, "stroke-width": 4, fill: "none" }));
      break;
    case "twist":
      for (let i = 0; i < 4; i++) {
        svg.append(s("ellipse", {
          cx: 14 + i * 12, cy: 32, rx: 8, ry: 14, fill: i % 2 ? dough : top,
          stroke: "#00000022", transform: `rotate(25 ${14 + i * 12} 32)`,
        }));
      }
      break;
    case "cup":
      svg.append(s("path", { d: "M14,20 H46 L42,54 H18 Z", fill: top, stroke: "#00000033" }));
      svg.append(s("ellipse", { cx: 30, cy: 20, rx: 16, ry: 4, fill: dough }));
      svg.append(s("path", { d: "M45,28 q10,2 6,12 q-2,4 -8,4", stroke: top, "stroke-width": 4, fill: "none" }));
      svg.append(s("path", { d: "M24,12 q4,-4 0,-8 M34,12 q4,-4 0,-8", stroke: "#9995", "stroke-width": 2, fill: "none" }));
      break;
    case "glass":
      svg.append(s("path", { d: "M18,8 H46 L42,58 H22 Z", fill: top, stroke: "#7a8ea5" }));
      svg.append(s("path", { d: "M19.5,20 H44.5 L42,56 H22 Z", fill: dough }));
      break;
    case "cruller":
      svg.append(ring(32, 32, 26, 9, dough));
      for (let a = 0; a < 360; a += 30) {
        svg.append(s("line", {
          x1: 32, y1: 9, x2: 32, y2: 20, stroke: top ?? "#0002", "stroke-width": 3,
          "stroke-linecap": "round", transform: `rotate(${a} 32 32)`,
        }));
      }
      break;
    case "filled":
      svg.append(s("circle", { cx: 32, cy: 34, r: 25, fill: dough, stroke: "#00000022" }));
      svg.append(s("ellipse", { cx: 32, cy: 34, rx: 11, ry: 8, fill: top }));
      svg.append(s("circle", { cx: 24, cy: 24, r: 3, fill: "#ffffff88" }));
      break;
    default: {
      svg.append(ring(32, 32, 27, 9, dough));
      if (top) {
        svg.append(s("path", {
          d: "M8,30 C8,12 56,12 56,30 C58,40 50,38 48,44 C44,50 40,42 36,46 C30,52 26,44 22,46 C14,50 12,40 8,30 Z",
          fill: top,
        }));
        svg.append(s("circle", { cx: 32, cy: 32, r: 10, fill: dough }));
        svg.append(s("circle", { cx: 32, cy: 32, r: 8.5, fill: "var(--hole, #fff8ee)" }));
      }
      if (info.shape === "sprinkles") {
        const colours = ["#e74c3c", "#3498db", "#f1c40f", "#2ecc71", "#9b59b6", "#fff"];
        const spots = [[16, 24], [24, 16], [40, 16], [48, 24], [14, 34], [50, 34], [22, 42], [42, 42], [32, 14]];
        spots.forEach(([x, y], i) => {
          svg.append(s("rect", {
            x, y, width: 5, height: 2, rx: 1, fill: colours[i % colours.length],
            transform: `rotate(${(i * 47) % 180} ${x} ${y})`,
          }));
        });
      }
    }
  }
  return svg;
}

/** The player-count dots ("••" for green 2+, up to "•••••" for blue 5+). */
export function dots(min) {
  return h("span", { class: "dots", role: "img", "aria-label": t("card.players", { n: min }) }, "•".repeat(min));
}

/**
 * A card element.
 * @param {string} kind  card kind id
 * @param {{compact?: boolean, position?: number, count?: number, tag?: string, attrs?: object,
 *          srPrefix?: string}} [opts]  srPrefix: words only a screen reader hears, first
 */
export function cardEl(kind, opts = {}) {
  const info = KINDS.get(kind);
  const min = info?.min ?? 2;
  const power = cardPower(kind);
  const tag = opts.tag ?? "div";
  const label = [cardName(kind), info?.power ? "★" : "", `${cardPoints(kind)}`]
    .filter(Boolean)
    .join(" · ");
  return h(
    tag,
    {
      class: `card colour-${COLOUR_NAMES[min]}${opts.compact ? " compact" : ""}`,
      dataset: { kind },
      title: [cardName(kind), cardPoints(kind), power].filter(Boolean).join("\n"),
      // A plain compact card is an image of the card to assistive technology (its label says it).
      role: opts.compact && tag === "div" ? "img" : null,
      "aria-label": opts.compact ? label : null,
      ...(opts.attrs ?? {}),
    },
    opts.srPrefix ? h("span", { class: "sr-only" }, opts.srPrefix) : null,
    h("span", { class: "card-head" },
      h("span", { class: "card-name" }, cardName(kind)),
      info?.power ? h("span", { class: "star", title: t("table.power") }, "★") : null,
    ),
    h("span", { class: "card-art" }, donutArt(kind, opts.compact ? 36 : 56)),
    opts.compact
      ? null
      : h("span", { class: "card-text" },
          h("span", { class: "card-points" }, cardPoints(kind)),
          power ? h("span", { class: "card-power" }, power) : null,
        ),
    h("span", { class: "card-foot" }, dots(min),
      opts.count && opts.count > 1 ? h("span", { class: "count" }, `×${opts.count}`) : null),
  );
}

/**
 * A card of a collection, compact: its drawing, its whole name (wrapped, never clipped), ★ and
 * the count; its points show on hover or keyboard focus, and a tap or Enter opens its details.
 * @param {string} kind
 * @param {number} count
 */
export function collectionCard(kind, count) {
  const info = KINDS.get(kind);
  const min = info?.min ?? 2;
  const points = cardPoints(kind);
  // The name a screen reader reads is the visible text, then the points (WCAG 2.5.3).
  return h("button", {
      type: "button",
      class: `card compact chip colour-${COLOUR_NAMES[min]}`,
      dataset: { kind, tip: `${cardName(kind)}: ${points}` },
      onclick: () => showCardDetails(kind),
    },
    h("span", { class: "card-art" }, donutArt(kind, 22)),
    h("span", { class: "card-name" }, cardName(kind)),
    info?.power ? h("span", { class: "star" }, "★") : null,
    count > 1 ? h("span", { class: "count" }, `×${count}`) : null,
    h("span", { class: "sr-only" }, `, ${t("card.points")}: ${points}`));
}

/** A long press on a row card (a touch screen) opens its details instead of picking it. */
export function longPress(el, kind) {
  let timer = 0;
  let fired = false;
  const cancel = () => clearTimeout(timer);
  el.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    fired = false;
    timer = window.setTimeout(() => {
      fired = true;
      showCardDetails(kind);
    }, 500);
  });
  for (const type of ["pointerup", "pointercancel", "pointerleave"]) el.addEventListener(type, cancel);
  el.addEventListener("contextmenu", (e) => e.preventDefault());
  el.addEventListener("click", (e) => {
    if (!fired) return;
    fired = false;
    e.preventDefault();
    e.stopImmediatePropagation();
  }, { capture: true });
}

/** A small trophy icon (drawn, so it needs no emoji font). */
export function trophy(size = 20) {
  return s("svg", { viewBox: "0 0 24 24", width: size, height: size, class: "trophy", "aria-hidden": "true" },
    s("path", { d: "M7 3h10v3h3v2a5 5 0 0 1-4.6 5A5 5 0 0 1 13 15.9V18h3v3H8v-3h3v-2.1A5 5 0 0 1 8.6 13 5 5 0 0 1 4 8V6h3zM6 8a3 3 0 0 0 2 2.8V8zm12 0h-2v2.8A3 3 0 0 0 18 8z", fill: "#e0a800", stroke: "#8a6a00", "stroke-width": 0.6 }));
}

/** The full text of a card (name, points, ★ power, player count) in a small dialog: what a
 * phone cannot show on the card itself and a touch screen cannot hover. */
export function showCardDetails(kind) {
  document.querySelector("dialog.card-details")?.remove();
  const info = KINDS.get(kind);
  const power = cardPower(kind);
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  const dialog = /** @type {HTMLDialogElement} */ (
    h("dialog", { class: "card-details", "data-testid": "card-details", "aria-labelledby": "card-details-title" },
      h("div", { class: "card-details-body" },
        cardEl(kind, { compact: true }),
        h("div", {},
          h("h2", { id: "card-details-title" }, cardName(kind), info?.power ? " ★" : ""),
          h("p", {}, h("strong", {}, `${t("card.points")}: `), cardPoints(kind)),
          power ? h("p", { "data-testid": "card-details-power" }, h("strong", {}, `★ ${t("card.power")}: `), power) : null,
          h("p", { class: "muted" }, t("card.players", { n: info?.min ?? 2 })))),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", onclick: close }, t("card.close")))));
  dialog.addEventListener("click", (e) => {
    if (e.target === dialog) close(); // a tap on the backdrop
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** A small "i" button beside a row card (shown on touch screens): tap it to read the card. */
export function infoButton(kind) {
  return h("button", {
    type: "button", class: "card-info", "aria-label": t("card.about", { card: cardName(kind) }),
    "data-testid": "card-info", onclick: () => showCardDetails(kind),
  }, h("span", { "aria-hidden": "true" }, "i"));
}

// A tap (or click) on any card that is not itself a control opens its details.
if (typeof document !== "undefined") {
  document.addEventListener("click", (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    const card = target.closest?.(".card[data-kind]");
    if (!card || card.closest("button, a, dialog")) return;
    showCardDetails(/** @type {HTMLElement} */ (card).dataset.kind);
  });
}
