// Seat credentials, kept in localStorage so closing the tab and coming back resumes the game.

const PREFIX = "gonuts.seat.";
const NAME_KEY = "gonuts.name";

/** @returns {{seat: number, token: string} | null} */
export function seatFor(tableId) {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFIX + tableId) ?? "null");
    return saved && typeof saved.token === "string" ? saved : null;
  } catch {
    return null;
  }
}

export function saveSeat(tableId, seat, token) {
  if (token) localStorage.setItem(PREFIX + tableId, JSON.stringify({ seat, token }));
}

export function forgetSeat(tableId) {
  localStorage.removeItem(PREFIX + tableId);
}

export function savedName() {
  return localStorage.getItem(NAME_KEY) ?? "";
}

export function rememberName(name) {
  localStorage.setItem(NAME_KEY, name);
}

/** Every saved seat, as `{table, token}` (the keys are this file's: `gonuts.seat.<table>`). */
export function savedSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(PREFIX)) continue;
    const table = key.slice(PREFIX.length);
    const saved = seatFor(table);
    if (saved) seats.push({ table, token: saved.token });
  }
  return seats;
}
