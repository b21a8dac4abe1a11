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

function narrate(root, text) {
  const box = root.querySelector(".prompt");
  if (!box) return;
  box.className = "prompt";
  box.textContent = text;
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
