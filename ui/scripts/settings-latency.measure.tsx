// Input latency of the Settings form under load: 40 profiles, 40 keystrokes into the selected
// profile's Model field, each keystroke's commit timed with React's Profiler (actualDuration:
// the time React spent rendering that update; baseDuration: what rendering the whole form would
// cost) and by the wall clock around the change event. Prints the medians and the 95th
// percentiles. Run: npx vitest run --config scripts/measure.config.ts
import { Profiler, type ProfilerOnRenderCallback } from "react";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { it } from "vitest";
import type { Settings } from "../src/api/types";
import { SettingsDialog } from "../src/components/SettingsDialog";
import { mockShell } from "../src/test/shell";

const PROFILES = 40;
const KEYSTROKES = 40;

const settings: Settings = {
  profiles: Array.from({ length: PROFILES }, (_, i) => ({
    id: `p${i}`,
    kind: "openai-chat" as const,
    label: `Server ${i}`,
    model: "qwen3",
    base_url: `http://10.0.0.${i}:8080/v1`,
    has_key: i % 2 === 0,
    context_window: 32000,
    compact_threshold: 8000,
  })),
  active_profile: "p0",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
};

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

it("measures the Settings form's keystroke latency", async () => {
  mockShell((cmd) => (cmd === "provider_kinds" ? [] : null));
  const commits: { actual: number; base: number }[] = [];
  const onRender: ProfilerOnRenderCallback = (_id, _phase, actual, base) => commits.push({ actual, base });
  render(
    <Profiler id="settings" onRender={onRender}>
      <SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} />
    </Profiler>,
  );
  await act(async () => {});
  const model = screen.getByLabelText("Model") as HTMLInputElement;
  const wall: number[] = [];
  commits.length = 0;
  for (let i = 0; i < KEYSTROKES; i += 1) {
    const started = performance.now();
    act(() => {
      fireEvent.change(model, { target: { value: `${model.value}x` } });
    });
    wall.push(performance.now() - started);
  }
  const actual = commits.map((c) => c.actual);
  const base = commits.map((c) => c.base);
  const f = (n: number) => n.toFixed(2);
  console.info(
    `settings latency (${PROFILES} profiles, ${KEYSTROKES} keystrokes, ${commits.length} commits): ` +
      `wall median ${f(quantile(wall, 0.5))} ms, p95 ${f(quantile(wall, 0.95))} ms; ` +
      `React render median ${f(quantile(actual, 0.5))} ms, p95 ${f(quantile(actual, 0.95))} ms ` +
      `(whole form ${f(quantile(base, 0.5))} ms)`,
  );
});
