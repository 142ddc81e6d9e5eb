import "@testing-library/jest-dom/vitest";
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";
import { markdownRenderer } from "../components/Markdown";

beforeAll(async () => {
  // Loaded when the first message renders in the app; at once here, so messages render as markdown from the start.
  await markdownRenderer.load();
  // jsdom has no layout: give the virtualised lists' scrollers a viewport-sized
  // box so the virtualiser has a window to fill (rows then measure 40 px each).
  const viewport = (el: HTMLElement) => el.classList.contains("message-list") || el.classList.contains("session-scroller");
  Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
    configurable: true,
    get() {
      return viewport(this as HTMLElement) ? 800 : 40;
    },
  });
  Object.defineProperty(HTMLElement.prototype, "clientHeight", {
    configurable: true,
    get() {
      return viewport(this as HTMLElement) ? 800 : 40;
    },
  });
  Object.defineProperty(HTMLElement.prototype, "offsetWidth", { configurable: true, get: () => 800 });
  Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 800 });
  HTMLElement.prototype.getBoundingClientRect = function () {
    const height = viewport(this) ? 800 : 40;
    return { x: 0, y: 0, top: 0, left: 0, bottom: height, right: 800, width: 800, height, toJSON: () => ({}) };
  };
  // jsdom's Range has no layout either; the find bar measures its current match's range.
  if (typeof Range !== "undefined" && !Range.prototype.getBoundingClientRect) {
    Range.prototype.getBoundingClientRect = () => ({ x: 0, y: 0, top: 0, left: 0, bottom: 20, right: 100, width: 100, height: 20, toJSON: () => ({}) });
  }
  // A scroller is as tall as its content (the virtualiser sizes its inner box).
  Object.defineProperty(HTMLElement.prototype, "scrollHeight", {
    configurable: true,
    get() {
      const inner = (this as HTMLElement).firstElementChild as HTMLElement | null;
      return inner ? Number.parseFloat(inner.style.height) || 0 : 0;
    },
  });
  const scrollTops = new WeakMap<Element, number>();
  Object.defineProperty(HTMLElement.prototype, "scrollTop", {
    configurable: true,
    get() {
      return scrollTops.get(this as Element) ?? 0;
    },
    set(value: number) {
      scrollTops.set(this as Element, value);
    },
  });
  HTMLElement.prototype.scrollTo = function (this: HTMLElement, options?: ScrollToOptions | number) {
    const top = typeof options === "number" ? undefined : options?.top;
    if (top !== undefined) {
      this.scrollTop = top;
      this.dispatchEvent(new Event("scroll"));
    }
  } as HTMLElement["scrollTo"];
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    }),
  });
});

afterEach(() => {
  cleanup();
  clearMocks();
});
