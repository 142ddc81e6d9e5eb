// The walk's geometry check (walk.test.js), run in the real app's page: on
// the screen as it is now, every visible control and every piece of
// header, toolbar and footer text is measured on its rendered boxes.
//
// - Cut: a control reaching outside the window, or outside an ancestor that
//   clips its overflow (one that scrolls vertically only hides what is
//   scrolled away: such a control is not measured); text cut inside its box
//   (scrollWidth past clientWidth), unless it ends in an ellipsis and its
//   whole text is in a tooltip (`title`) or the accessible name; an empty
//   field's placeholder cut or scrolled.
// - Wrapped: a button, tab, menu item, chip, badge, key cap or bar text
//   whose own text takes more than one line.
// - Overlapping: two measured controls whose visible boxes intersect (one
//   inside the other aside).
//
// What a modal dialog covers is not on screen: with one open, only the
// dialog (and the menus, list boxes and tooltips over it) is measured. A
// drawer (the debug console or the sessions below 1200 px) lies over the
// chat by design: what it covers is not measured.

/**
 * Runs in the page (serialised by `h.run`, with the harness's page helpers): the layout defects
 * on screen, as sentences naming the control, and how many controls were measured.
 */
export function geometryProblems() {
  const problems = [];
  const CONTROLS = [
    "button",
    "a[href]",
    "input:not([type=hidden])",
    "select",
    "textarea",
    "summary",
    "label",
    "kbd",
    "[role=button]",
    "[role=tab]",
    "[role=menuitem]",
    "[role=option]",
    "[role=radio]",
    "[role=checkbox]",
    "[role=switch]",
    "[role=combobox]",
    "[role=separator][tabindex]",
    ".badge",
    ".model-chip",
    ".status-pill",
  ].join(", ");
  const ONE_LINE = "button, [role=tab], [role=menuitem], summary, kbd, .badge, .model-chip, .status-pill";
  const BARS = "header, footer, [role=toolbar], [role=tablist], .app-header, .conversation-header, .app-footer, .console-header";

  const describe = (el) => {
    const classes = typeof el.className === "string" && el.className.trim() ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    const name = norm(el.getAttribute("aria-label") || el.getAttribute("title") || el.textContent || el.getAttribute("placeholder") || "").slice(0, 48);
    return `${el.tagName.toLowerCase()}${classes} "${name}"`;
  };
  const shown = (el) => {
    if (!visible(el)) return false;
    for (let a = el; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.visibility === "hidden" || Number(style.opacity) === 0 || a.getAttribute("aria-hidden") === "true") return false;
    }
    // Visually hidden (a screen reader's label): a 1 px box, clipped.
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1;
  };
  const intersect = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;

  // What is on top: a modal dialog (the last one opened), else the page. Drawers and pop-ups
  // (menus, list boxes, tooltips) lie over what is under them by design: that is not measured.
  const dialogs = all("[role=dialog], [role=alertdialog]").filter((d) => d.getAttribute("aria-modal") === "true" || d.closest(".modal-backdrop, .modal"));
  const top = dialogs[dialogs.length - 1];
  const roots = top ? [top] : [document.body];
  const floating = (el) => {
    for (let a = el; a && a !== top && a !== document.body; a = a.parentElement) if (/absolute|fixed/.test(getComputedStyle(a).position)) return true;
    return false;
  };
  const layers = [
    ...(top ? [] : all("aside.console.console-drawer, [data-testid=sidebar-drawer]")),
    ...all("[role=menu], [role=listbox], [role=tooltip], .toast").filter((p) => floating(p) && (!top || top.contains(p) || p.getAttribute("role") === "tooltip")),
  ];
  const covered = (el) => layers.some((l) => !l.contains(el) && intersect(visibleRect(el), l.getBoundingClientRect()));

  // The ancestor that hides part of `el`: where, and whether it only scrolls it away.
  const clipOf = (el, root) => {
    const box = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const style = getComputedStyle(a);
      const clip = a.getBoundingClientRect();
      const scrollsY = /auto|scroll/.test(style.overflowY) && a.scrollHeight > a.clientHeight;
      if (style.overflowY !== "visible" && (box.top < clip.top - 1 || box.bottom > clip.bottom + 1)) {
        return scrollsY ? { scrolled: true } : { by: a, axis: "vertically" };
      }
      if (style.overflowX !== "visible" && (box.left < clip.left - 1 || box.right > clip.right + 1)) return { by: a, axis: "sideways" };
      if (a === root) break;
    }
    if (box.left < -1 || box.top < -1 || box.right > innerWidth + 1 || box.bottom > innerHeight + 1) return { by: null, axis: "by the window" };
    return null;
  };
  // The whole text is at hand: a tooltip, or the accessible name.
  const fullTextAt = (el, control) => {
    const text = norm(el.textContent);
    for (let a = el; a; a = a.parentElement) {
      if (norm(a.getAttribute("title")).includes(text) || norm(a.getAttribute("aria-label")).includes(text)) return true;
      if (a === control) break;
    }
    return false;
  };
  // Elements holding text of their own.
  const texts = (el) =>
    [el, ...el.querySelectorAll("*")].filter((t) => shown(t) && Array.from(t.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim()));
  const measured = [];
  for (const root of roots) {
    const candidates = [
      ...(root.matches(CONTROLS) ? [root] : []),
      ...root.querySelectorAll(CONTROLS),
      // Header, toolbar and footer text.
      ...Array.from(root.querySelectorAll(BARS)).flatMap((bar) => texts(bar)),
    ];
    for (const el of new Set(candidates)) {
      if (!shown(el) || covered(el)) continue;
      // A label holding its control is measured as the control's text, not as a box of its own.
      if (el.tagName === "LABEL" && el.querySelector("input, select, textarea") && !el.querySelector("input[type=radio], input[type=checkbox]")) continue;
      const clip = clipOf(el, root);
      if (clip?.scrolled) continue;
      measured.push(el);
      if (clip) problems.push(`${describe(el)} is cut ${clip.axis}${clip.by ? ` by ${describe(clip.by)}` : ""}`);
    }
  }

  for (const el of measured) {
    const inBar = !!el.closest(BARS);
    const field = el.matches("input, textarea, select");
    // Text cut inside its box (a field's value may scroll).
    if (!field) {
      for (const t of texts(el)) {
        if (t.scrollWidth <= t.clientWidth + 1 || getComputedStyle(t).display.startsWith("inline") && t.clientWidth === 0) continue;
        const ellipsis = getComputedStyle(t).textOverflow === "ellipsis";
        if (!(ellipsis && fullTextAt(t, el))) {
          problems.push(`${describe(el)} cuts its text${t === el ? "" : ` (${describe(t)})`}${ellipsis ? " with an ellipsis but no tooltip" : ""}`);
          break;
        }
      }
    }
    // A field's placeholder (what an empty field says) whole: a textarea would scroll it, an input cut it.
    if (field && !el.value && el.placeholder) {
      const style = getComputedStyle(el);
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const canvas = document.createElement("canvas").getContext("2d");
      canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const cut = el.tagName === "TEXTAREA" ? el.scrollHeight > el.clientHeight + 1 : canvas.measureText(el.placeholder).width > room + 1;
      if (cut) problems.push(`${describe(el)} cuts its placeholder "${el.placeholder}"`);
    }
    // Wrapped: one-line controls, and the bars' text. A control's block-level parts (a card's
    // description) may wrap; its label and inline text may not.
    if (el.matches(ONE_LINE) || (inBar && !field && el.matches(":not(label)"))) {
      for (const t of texts(el)) {
        // On the control's own line: every box between the text and the control inline, or an
        // item of a row (flex items are blocks). A stacked part (a card's description) may wrap.
        let onLine = true;
        for (let a = t; a && a !== el; a = a.parentElement) {
          const parent = getComputedStyle(a.parentElement);
          const row = /flex/.test(parent.display) && parent.flexDirection.startsWith("row");
          if (!getComputedStyle(a).display.startsWith("inline") && !row) onLine = false;
        }
        if (!onLine) continue;
        const wrapped = Array.from(t.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() && lines(n) > 1);
        if (wrapped) {
          problems.push(`${describe(el)} wraps its text over ${lines(t)} lines`);
          break;
        }
      }
    }
  }

  // Overlapping: no two measured boxes intersect, unless one holds the other.
  const boxes = measured.map((el) => [el, visibleRect(el)]);
  for (let i = 0; i < boxes.length; i++) {
    const [a, ra] = boxes[i];
    for (let j = i + 1; j < boxes.length; j++) {
      const [b, rb] = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      // A label and the field it names are one control.
      const labelled = (l, f) => l.tagName === "LABEL" && (l.htmlFor ? l.htmlFor === f.id : l.contains(f));
      if (labelled(a, b) || labelled(b, a)) continue;
      if (intersect(ra, rb)) problems.push(`${describe(a)} overlaps ${describe(b)}`);
    }
  }
  return { problems: [...new Set(problems)], measured: measured.length };
}
