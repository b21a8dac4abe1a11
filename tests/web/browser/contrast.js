// A computed WCAG 2 contrast check (run by Playwright's page.evaluate): every visible element
// with its own text, its colour against the background it is drawn on (ancestors' background
// colours composited, opacity included). Returns the elements below AA: 4.5:1, or 3:1 for large
// text (24px, or 18.66px bold). Controls drawn faded as disabled are exempt (WCAG 1.4.3).
(root) => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const lum = (c) => {
    const f = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // The background under `el`: its ancestors' colours, bottom (white page) first.
  const background = (el) => {
    const layers = [];
    let opacity = 1;
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const style = getComputedStyle(n);
      opacity *= Number(style.opacity);
      const bg = parse(style.backgroundColor);
      if (bg && bg.a > 0) layers.push(bg);
      if (n.tagName === "DIALOG" && n.open) break; // a modal dialog sits on the top layer
    }
    let colour = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return { colour, opacity };
  };
  const failures = [];
  let checked = 0;
  for (const el of (root ?? document.body).querySelectorAll("*")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    if (el.closest("[hidden], .sr-only, option, script, style, noscript")) continue;
    const disabled = el.closest(":disabled");
    if (disabled && Number(getComputedStyle(disabled).opacity) < 1) continue; // shown inactive
    if (el.closest("dialog:not([open])") || el.closest("details:not([open]) > :not(summary)")) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility !== "visible" || box.width === 0 || box.height === 0) continue;
    const { colour: bg, opacity } = background(el);
    const fg = parse(style.color);
    if (!fg) continue;
    const text = over({ ...fg, a: fg.a * opacity }, bg);
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    const need = large ? 3 : 4.5;
    const got = ratio(text, bg);
    checked += 1;
    if (got < need) {
      failures.push({
        text: el.textContent.trim().slice(0, 40),
        tag: el.tagName.toLowerCase(),
        cls: String(el.className?.baseVal ?? el.className ?? ""),
        ratio: Math.round(got * 100) / 100,
        need,
        colour: style.color,
      });
    }
  }
  return { checked, failures };
}
