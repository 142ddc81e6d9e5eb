// Loads uPlot on first use, so the library ships only with the console's
// chart. uPlot builds `new Intl.NumberFormat(navigator.language)` when its
// module is evaluated, and WebKitGTK (the Linux webview) derives
// `navigator.language` from the process locale without making it a valid
// language tag: under LANG=C or C.UTF-8 it is "C", so the module throws a
// RangeError while loading and the chart is never drawn. Only for that
// evaluation, `navigator.language` reads as a tag Intl accepts.
import type uPlot from "uplot";
import { lazyModule } from "../lib/lazyModule";

function accepted(tag: string): boolean {
  try {
    new Intl.NumberFormat(tag);
    return true;
  } catch {
    return false;
  }
}

/**
 * A language Intl accepts for `language`: itself when valid; a POSIX locale
 * name turned into a tag ("en_US.UTF-8" and "sr_RS@latin" give "en-US" and
 * "sr-RS"); else, for "C", "POSIX" or nothing, the runtime's default locale.
 */
export function intlSafeLanguage(language: string | null | undefined): string {
  if (language && !/^(c|posix)([.@]|$)/i.test(language)) {
    if (accepted(language)) return language;
    const tag = language.replace(/[.@].*$/, "").replace(/_/g, "-");
    if (accepted(tag)) return tag;
  }
  return new Intl.NumberFormat().resolvedOptions().locale;
}

async function importUPlot(): Promise<typeof uPlot> {
  const nav = typeof navigator === "undefined" ? null : navigator;
  const language = nav?.language;
  const safe = intlSafeLanguage(language);
  const own = nav ? Object.getOwnPropertyDescriptor(nav, "language") : undefined;
  const patch = nav !== null && safe !== language && (own === undefined || own.configurable === true);
  if (patch) Object.defineProperty(nav, "language", { configurable: true, get: () => safe });
  try {
    return (await import("uplot")).default;
  } finally {
    if (patch) {
      if (own) Object.defineProperty(nav, "language", own);
      else Reflect.deleteProperty(nav, "language");
    }
  }
}

const uplot = lazyModule(importUPlot);

/** The uPlot constructor, loaded once (a failed load is tried again on the next call). */
export function loadUPlot(): Promise<typeof uPlot> {
  return uplot.load();
}
