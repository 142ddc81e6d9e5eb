import { afterEach, describe, expect, it } from "vitest";
import { intlSafeLanguage, loadUPlot } from "./loadUPlot";

const runtimeDefault = new Intl.NumberFormat().resolvedOptions().locale;

/** Makes `navigator.language` read as `language`, as WebKitGTK reports the process locale. */
function reportLanguage(language: string) {
  Object.defineProperty(navigator, "language", { configurable: true, get: () => language });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, "language");
});

describe("intlSafeLanguage", () => {
  it("keeps a language tag Intl accepts", () => {
    expect(intlSafeLanguage("en-US")).toBe("en-US");
    expect(intlSafeLanguage("de")).toBe("de");
    expect(intlSafeLanguage("pt-BR")).toBe("pt-BR");
  });

  it("turns a POSIX locale name into a tag", () => {
    expect(intlSafeLanguage("en_US.UTF-8")).toBe("en-US");
    expect(intlSafeLanguage("de_DE@euro")).toBe("de-DE");
    expect(intlSafeLanguage("sr_RS.UTF-8@latin")).toBe("sr-RS");
  });

  it("falls back to the runtime's locale for the C locale, nonsense or nothing", () => {
    for (const language of ["C", "C.UTF-8", "c.utf8", "POSIX", "", "not a tag!", undefined, null]) {
      const safe = intlSafeLanguage(language);
      expect(safe).toBe(runtimeDefault);
      expect(() => new Intl.NumberFormat(safe)).not.toThrow();
    }
  });
});

describe("loadUPlot", () => {
  // WebKitGTK under LANG=C.UTF-8 reports "C"; uPlot passes navigator.language
  // to Intl.NumberFormat while its module loads, which threw a RangeError and
  // left the console's chart empty in the desktop app.
  it("loads uPlot when the webview reports the C locale as its language", async () => {
    reportLanguage("C");
    expect(() => new Intl.NumberFormat(navigator.language)).toThrow(RangeError);
    const UPlot = await loadUPlot();
    expect(typeof UPlot).toBe("function");
    expect(typeof UPlot.paths).toBe("object");
    // The substitute lasted only while the module loaded.
    expect(navigator.language).toBe("C");
    expect(await loadUPlot()).toBe(UPlot);
  });
});
