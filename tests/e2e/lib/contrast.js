// WCAG AA contrast, measured in the real app's page: every piece of text
// against what is really painted behind it (computed colours, opacity,
// the element stack at the text's centre), placeholders against their
// field, and text fields' boundaries against what surrounds them.
// 4.5:1 for normal text, 3:1 for large text (24 px, or 18.66 px bold) and
// for the boundary of a UI component (WCAG 1.4.3 and 1.4.11). Disabled
// controls and text hidden from everyone (aria-hidden decorations, text
// scrolled out or covered by a dialog) are exempt, as WCAG exempts them.

/**
 * Runs in the page (serialised by `h.run`): the contrast failures on screen, as sentences, and
 * how many texts were measured.
 */
export function contrastProblems() {
  const parse = (value) => {
    const m = /rgba?\(([^)]+)\)/.exec(value || "");
    if (!m) return null;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
    const mix = (k) => (top[k] * top.a + bottom[k] * bottom.a * (1 - top.a)) / a;
    return { r: mix("r"), g: mix("g"), b: mix("b"), a };
  };
  const luminance = ({ r, g, b }) => {
    const lin = (c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratio = (x, y) => {
    const [l1, l2] = [luminance(x), luminance(y)].sort((p, q) => q - p);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const opacityOf = (el) => {
    let o = 1;
    for (let a = el; a; a = a.parentElement) o *= Number(getComputedStyle(a).opacity);
    return o;
  };
  const hex = ({ r, g, b }) => `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
  const label = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`;
  const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
  const page = canvas && canvas.a > 0 ? { ...canvas, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };

  // What is painted behind the point (x, y) from `from` down (`from` itself included when `self`):
  // the background colours of the element stack there, composited bottom-up; null when an image or
  // gradient is in the way (not measured).
  const backdrop = (x, y, from, self) => {
    const stack = document.elementsFromPoint(x, y);
    let start = stack.findIndex((el) => el === from || el.contains(from));
    if (start === -1) return null;
    if (!self && stack[start] === from) start += 1;
    let color = page;
    for (let i = stack.length - 1; i >= start; i--) {
      const style = getComputedStyle(stack[i]);
      if (style.backgroundImage !== "none") return null;
      const bg = parse(style.backgroundColor);
      if (bg && bg.a > 0) color = over({ ...bg, a: bg.a * opacityOf(stack[i]) }, color);
    }
    return color;
  };
  const exempt = (el) => el.closest("[aria-hidden=true], :disabled, [aria-disabled=true], .visually-hidden");

  const problems = [];
  let measured = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || seen.has(el) || !node.textContent.trim()) continue;
    seen.add(el);
    if (exempt(el)) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = Array.from(range.getClientRects()).find((r) => r.width > 0 && r.height > 0);
    if (!rect) continue;
    const [x, y] = [rect.left + Math.min(rect.width / 2, 8), rect.top + rect.height / 2];
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    // Covered (a dialog's backdrop, a drawer) or clipped (scrolled out of its box): not what
    // the person reads now. (An ancestor on top: the text lets the pointer through.)
    const top = document.elementFromPoint(x, y);
    if (!top || !(el.contains(top) || top.contains(el))) continue;
    const shown = visibleRect(el);
    if (x < shown.left || x > shown.right || y < shown.top || y > shown.bottom) continue;
    const bg = backdrop(x, y, el, true);
    const fg = parse(style.color);
    if (!bg || !fg) continue;
    // Shown only on hover or focus (opacity 0 until then): not on screen now.
    if (opacityOf(el) < 0.1) continue;
    const text = over({ ...fg, a: fg.a * opacityOf(el) }, bg);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(text, bg);
    measured++;
    if (got < need - 0.005) problems.push(`${label(el)} "${norm(node.textContent).slice(0, 30)}": ${got.toFixed(2)}:1 (${hex(text)} on ${hex(bg)}), needs ${need}:1`);
  }

  // A field's placeholder colour. WebKit's getComputedStyle ignores "::placeholder" (it answers
  // with the field's own style), so the page's ::placeholder rules are read, the last matching one
  // winning; with none, WebKit's own stylesheet's: darkGray.
  const placeholderColor = (field) => {
    let color = null;
    for (const sheet of Array.from(document.styleSheets)) {
      let rules;
      try {
        rules = Array.from(sheet.cssRules);
      } catch {
        continue;
      }
      for (const rule of rules) {
        if (!(rule instanceof CSSStyleRule) || !rule.selectorText.includes("::placeholder") || !rule.style.color) continue;
        const matches = rule.selectorText.split(",").some((one) => {
          const bare = one.replace(/::placeholder/g, "").trim();
          return one.includes("::placeholder") && (bare === "" || field.matches(bare));
        });
        if (matches) color = rule.style.color;
      }
    }
    if (!color) return { r: 169, g: 169, b: 169, a: 1 };
    // A custom property resolved on the field (its theme).
    const probe = document.createElement("span");
    probe.style.color = color;
    field.parentElement.appendChild(probe);
    const resolved = parse(getComputedStyle(probe).color);
    probe.remove();
    return resolved;
  };
  // What shows a field's edge: its own border, else the nearest of two ancestors with one (a
  // composer box around a borderless textarea).
  const edgeOf = (field) => {
    for (let el = field, up = 0; el && up < 3; el = el.parentElement, up++) {
      const style = getComputedStyle(el);
      const border = parse(style.borderLeftColor);
      if (style.borderLeftStyle !== "none" && parseFloat(style.borderLeftWidth) > 0 && border && border.a > 0) return { el, border };
    }
    return { el: field, border: null };
  };

  // Text fields: the placeholder against the field, the field's boundary against what surrounds it.
  for (const field of document.querySelectorAll("input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=hidden]), textarea")) {
    if (exempt(field) || !visible(field)) continue;
    const box = field.getBoundingClientRect();
    const [x, y] = [box.left + 6, box.top + box.height / 2];
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const top = document.elementFromPoint(x, y);
    if (!top || !(field.contains(top) || top === field)) continue;
    const inside = backdrop(x, y, field, true);
    const outside = backdrop(x, y, field, false);
    if (!inside || !outside) continue;
    measured++;
    const name = `${label(field)} ${JSON.stringify(field.getAttribute("aria-label") || field.placeholder || field.id)}`;
    if (field.placeholder && !field.value) {
      const ph = placeholderColor(field);
      if (ph) {
        const shown = over({ ...ph, a: ph.a * opacityOf(field) }, inside);
        const got = ratio(shown, inside);
        if (got < 4.5 - 0.005) problems.push(`${name}'s placeholder: ${got.toFixed(2)}:1 (${hex(shown)} on ${hex(inside)}), needs 4.5:1`);
      }
    }
    const { el: framed, border } = edgeOf(field);
    const around = framed === field ? outside : backdrop(x, y, framed, false);
    if (!around) continue;
    const edge = border ? ratio(over(border, around), around) : 1;
    const fill = ratio(backdrop(x, y, framed, true) ?? inside, around);
    if (Math.max(edge, fill) < 3 - 0.005) problems.push(`${name}'s boundary: ${Math.max(edge, fill).toFixed(2)}:1 against ${hex(around)}, needs 3:1`);
  }
  return { problems, measured };
}
