// The reveal, animated from the event log: selections appear on the row, then each position
// resolves in order (taken / contested), with power effects narrated as they happen.

import { h, sleep } from "../dom.js";
import { describeEvent } from "../events.js";
import { t } from "../i18n.js";

/** Milliseconds per animation step; 0 turns animation off (localStorage "gonuts.speed"). */
function stepMs() {
  const saved = Number(localStorage.getItem("gonuts.speed"));
  return Number.isFinite(saved) && localStorage.getItem("gonuts.speed") !== null ? saved : 550;
}

function slotAt(root, position) {
  return root.querySelector(`.slot[data-position="${position}"]`);
}

function label(slot, text) {
  slot?.querySelector(".outcome")?.remove();
  slot?.append(h("span", { class: "outcome" }, text));
}

/** The page's one live region for the reveal: it outlives every redraw of the table, so a
 * screen reader hears each step (the prompt shows the same words but stays quiet meanwhile). */
export function narration() {
  let region = document.getElementById("narration");
  if (!region) {
    region = h("div", {
      id: "narration", class: "sr-only", role: "log", "aria-live": "polite",
      "aria-label": t("table.narration"), "data-testid": "narration",
    });
    document.body.append(region);
  }
  return region;
}

function narrate(root, text) {
  const region = narration();
  region.append(h("p", {}, text));
  while (region.childElementCount > 12) region.firstElementChild?.remove();
  const box = root.querySelector(".prompt");
  if (!box) return;
  box.className = "prompt";
  box.setAttribute("aria-live", "off");
  box.textContent = text;
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** A copy of the taken card flies from its slot into the taker's seat panel. */
function flyToTaker(root, slot, player, ms) {
  const card = slot?.querySelector(".card");
  const target = root.querySelector(`.player[data-seat="${player}"] .collection`)
    ?? root.querySelector(`.player[data-seat="${player}"]`);
  if (!card || !target || reducedMotion() || ms < 80) return;
  const from = card.getBoundingClientRect();
  const to = target.getBoundingClientRect();
  const ghost = /** @type {HTMLElement} */ (card.cloneNode(true));
  ghost.removeAttribute("data-testid");
  ghost.setAttribute("aria-hidden", "true");
  ghost.classList.add("flying-card");
  ghost.style.left = `${from.left}px`;
  ghost.style.top = `${from.top}px`;
  ghost.style.width = `${from.width}px`;
  ghost.style.height = `${from.height}px`;
  ghost.style.transitionDuration = `${Math.round(ms * 0.8)}ms`;
  document.body.append(ghost);
  const dx = to.left + Math.min(to.width, 40) / 2 - (from.left + from.width / 2);
  const dy = to.top + 12 - (from.top + from.height / 2);
  requestAnimationFrame(() => {
    ghost.style.transform = `translate(${dx}px, ${dy}px) scale(0.25)`;
    ghost.style.opacity = "0.2";
  });
  setTimeout(() => ghost.remove(), ms + 50);
}

/**
 * Animate `events` over the row currently drawn in `root` (which shows `before`).
 * @param {HTMLElement} root
 * @param {object} before  the view on screen
 * @param {object[]} events  the new events, in order
 * @param {string[]} names
 * @param {() => boolean} [cancelled]  true once a newer state makes this animation moot
 */
export async function playReveal(root, before, events, names, cancelled = () => false) {
  const ms = stepMs();
  if (ms <= 0) return;
  for (const e of events) {
    if (cancelled()) return;
    const slot = e.position ? slotAt(root, e.position) : null;
    switch (e.type) {
      case "selections_revealed":
        narrate(root, t("reveal.revealed"));
        root.querySelectorAll(".player .status").forEach((chip) => chip.remove());
        (e.positions ?? []).forEach((pos, p) => {
          // Your own pick is already marked (you saw it while the others chose): not twice.
          const markers = slotAt(root, pos)?.querySelector(".markers");
          if (!markers || markers.querySelector(`.marker[data-seat="${p}"]`)) return;
          markers.append(h("span", { class: `marker${p === before.seat ? " me" : ""}`, dataset: { seat: p } }, names[p]));
        });
        await sleep(ms);
        break;
      case "card_taken":
        slot?.classList.add("resolving");
        narrate(root, describeEvent(e));
        await sleep(ms * 0.6);
        slot?.classList.remove("resolving");
        flyToTaker(root, slot, e.player, ms);
        slot?.classList.add("taken");
        label(slot, names[e.player]);
        await sleep(ms * 0.6);
        break;
      case "card_contested":
      case "row_card_discarded":
        slot?.classList.add("contested");
        narrate(root, describeEvent(e));
        label(slot, t("reveal.discarded"));
        await sleep(ms);
        break;
      case "round_started":
      case "row_refilled":
      case "game_over":
        break;
      default:
        narrate(root, describeEvent(e));
        await sleep(ms);
    }
  }
}
