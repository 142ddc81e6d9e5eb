import { describe, expect, it } from "vitest";
import type { Settings } from "../api/types";
import { fromDraft, hasErrors, newProfile, toDraft, validateSettings } from "./settingsForm";

const settings: Settings = {
  profiles: [
    { id: "openai", kind: "openai-responses", label: "OpenAI", model: "gpt-5.4", has_key: true, context_window: 400000, compact_threshold: 8000 },
    { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, compact_threshold: 8000 },
  ],
  active_profile: "openai",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
  sandbox: "off",
  sandbox_network: "off",
  sandbox_allow_domains: [],
};

describe("settings validation", () => {
  it("accepts valid settings and round-trips them with numbers", () => {
    const draft = toDraft(settings);
    expect(hasErrors(validateSettings(draft))).toBe(false);
    expect(fromDraft(draft)).toEqual(settings);
  });

  it("reads numbers written with separators", () => {
    const draft = toDraft(settings);
    draft.profiles[0]!.context_window = "200_000";
    draft.profiles[0]!.compact_threshold = "150,000";
    const saved = fromDraft(draft);
    expect(saved.profiles[0]).toMatchObject({ context_window: 200000, compact_threshold: 150000 });
  });

  it("names every invalid field the profile editor shows", () => {
    const draft = toDraft(settings);
    const p = draft.profiles[0]!;
    p.label = " ";
    p.model = "";
    p.base_url = "api.openai.com";
    p.context_window = "-5";
    const errors = validateSettings(draft);
    expect(Object.keys(errors.profiles.openai ?? {}).sort()).toEqual(["base_url", "context_window", "label", "model"]);
    expect(errors.profiles.demo).toBeUndefined();
  });

  it("leaves the profile's own threshold, which it does not show, to Context management's one threshold", () => {
    const draft = toDraft(settings);
    draft.profiles[0]!.context_window = "4000";
    expect(validateSettings(draft).profiles.openai).toBeUndefined();
    expect(fromDraft(draft).profiles[0]).toMatchObject({ context_window: 4000, compact_threshold: 8000 });
  });

  it("rejects duplicate names and a missing active profile", () => {
    const draft = toDraft(settings);
    draft.profiles.push({ ...newProfile(draft.profiles), label: "OpenAI" });
    draft.active_profile = "gone";
    const errors = validateSettings(draft);
    expect(errors.form).toMatch(/active/);
    expect(Object.values(errors.profiles).some((e) => e.label === "Another profile has this name.")).toBe(true);
  });
});
