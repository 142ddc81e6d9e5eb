// The themes' colour pairs that text fields rely on, against WCAG AA: placeholders 4.5:1 on the
// fields' fills, field edges 3:1 on the surfaces around them. The e2e contrast test
// (tests/e2e/contrast.test.js) measures the rendered screens; this catches a palette change early.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const css = readFileSync(join(import.meta.dirname, "app.css"), "utf8");

/** The custom properties of the block that starts with `selector`. */
function theme(selector: string): Record<string, string> {
  const start = css.indexOf(selector);
  const body = css.slice(css.indexOf("{", start) + 1, css.indexOf("}", start));
  return Object.fromEntries(Array.from(body.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\s*;/gi), (m) => [m[1]!, m[2]!]));
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

function ratio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe.each([
  ["light", ":root,"],
  ["dark", '[data-theme="dark"] {'],
])("the %s theme", (_name, selector) => {
  const vars = theme(selector);

  it("gives placeholders 4.5:1 on every field fill", () => {
    for (const fill of ["--surface", "--surface-2"]) expect(ratio(vars["--placeholder"]!, vars[fill]!)).toBeGreaterThanOrEqual(4.5);
  });

  it("gives text fields' edges 3:1 on the surfaces around them", () => {
    for (const around of ["--bg", "--surface", "--surface-2"]) expect(ratio(vars["--field-border"]!, vars[around]!)).toBeGreaterThanOrEqual(3);
  });

  it("gives the success colour 4.5:1 on its badge", () => {
    expect(ratio(vars["--ok"]!, vars["--ok-soft"]!)).toBeGreaterThanOrEqual(4.5);
  });
});
