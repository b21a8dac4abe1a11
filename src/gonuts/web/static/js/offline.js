// The offline page: shows the reader's language (the one the app remembered, else the
// browser's), retries on a click, and reloads by itself once the server answers again (the
// browser's "online" event alone is not enough: it can come before the network works, or
// not at all when only the server was unreachable).

const LANGS = ["en", "es", "it"];

function chosenLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem("gonuts.lang");
  } catch {
    saved = null; // storage refused (private mode): the browser's language then
  }
  const wanted = [saved, ...(navigator.languages ?? [navigator.language])];
  for (const tag of wanted) {
    const base = (tag ?? "").toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

const lang = chosenLanguage();
document.documentElement.lang = lang;
for (const section of document.querySelectorAll("main section")) {
  section.hidden = section.lang !== lang;
}
for (const button of document.querySelectorAll(".retry")) {
  button.addEventListener("click", () => location.reload());
}
async function serverAnswers() {
  try {
    const response = await fetch("/healthz", { cache: "no-store" });
    return response.ok;
  } catch {
    return false;
  }
}

let checking = false;
async function comeBackIfOnline() {
  if (checking) return;
  checking = true;
  if (await serverAnswers()) location.reload();
  checking = false;
}

window.addEventListener("online", comeBackIfOnline);
setInterval(comeBackIfOnline, 3000);
