// House rules (RULES.md "Variants"): the checkboxes of the table-creation form and the
// "House rules: …" badge of the table, the lobby and the replay viewer. The server checks the
// names (POST /api/tables); tables and views list them in RULES.md order.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const VARIANTS = ["sprinkled_any_card", "milk_any_three", "twist_pass_any"];

/** One checkbox per house rule with its one-line explanation; ticks go into the Set `chosen`. */
export function variantChoices(chosen) {
  return h("fieldset", { class: "variants", "data-testid": "variants" },
    h("legend", {}, t("variant.title")),
    h("p", { class: "muted" }, t("variant.intro")),
    VARIANTS.map((v) =>
      h("label", { class: "variant", for: `variant-${v}` },
        h("input", {
          type: "checkbox", id: `variant-${v}`, value: v, checked: chosen.has(v),
          "data-testid": `variant-${v}`,
          onchange: (e) => (e.target.checked ? chosen.add(v) : chosen.delete(v)),
        }),
        h("span", {}, h("strong", {}, t(`variant.${v}.name`)), h("span", { class: "variant-text" }, ruleText(v))))));
}

/** A rule's explanation without the card name it starts with ("Sprinkled: …"), which the
 * bold name above it already says. */
function ruleText(v) {
  return t(`variant.${v}.text`).replace(/^[^:.]{1,40}:\s*/u, "").replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

/** The names of `variants`, joined; "" for the default game. */
export function variantNames(variants) {
  return (variants ?? []).map((v) => t(`variant.${v}.name`)).join(", ");
}

/** "House rules: …" (each rule's text on hover and for screen readers), or null without any. */
export function variantBadge(variants) {
  if (!variants?.length) return null;
  const details = variants.map((v) => `${t(`variant.${v}.name`)}: ${t(`variant.${v}.text`)}`).join("\n");
  return h("span", { class: "pill variant-badge", "data-testid": "house-rules", title: details },
    t("variant.badge", { names: variantNames(variants) }),
    h("span", { class: "sr-only" }, ` (${details})`));
}
