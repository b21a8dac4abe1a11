// Actions in RECORD.md notation ("take glazed from 1") → parts and human words. The server
// labels the actions it offers (`label`, in the socket's language); this words any other one
// with the same patterns (the server catalogue's `actions`, as `action.<verb>` keys).

import { cardWords, displayName, t } from "./i18n.js";

/**
 * Parse one action's notation.
 * @returns {{verb: string, position?: number, kind?: string, seat?: number, notation: string}}
 */
export function parseAction(notation) {
  const w = notation.trim().split(/\s+/);
  const out = { notation, verb: w[0] };
  if (w[0] === "pick") return { ...out, position: Number(w[1]) };
  if (w[0] === "stop") return out;
  if (w[0] === "discard" && /^\d+$/.test(w[1])) return { ...out, verb: "discard_position", position: Number(w[1]) };
  if (w[0] === "take" && w[2] === "from") return { ...out, verb: "take_from", kind: w[1], seat: Number(w[3]) };
  if (w[0] === "discard" && w[2] === "from") return { ...out, verb: "discard_from", kind: w[1], seat: Number(w[3]) };
  if (w[0] === "give") return { ...out, kind: w[1], seat: Number(w[3]) };
  return { ...out, kind: w[1] };
}

/** Words for an action, e.g. "Take a Glazed from Ben", "Descartar tus Donas del día anterior". */
export function describeAction(notation, names) {
  const a = parseAction(notation);
  const seat = a.seat !== undefined ? displayName(names[a.seat] ?? `#${a.seat + 1}`) : "";
  const vars = {
    card: a.kind ? cardWords(a.kind) : "",
    seat,
    player: seat,
    position: a.position ?? "",
  };
  return t(`action.${a.verb}`, vars);
}
