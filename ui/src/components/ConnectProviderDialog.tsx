import { useId, useRef, useState } from "react";
import { toCommandFailure } from "../api/commands";
import type { ProviderKind, Settings } from "../api/types";
import type { SetApiKey } from "../bindings/SetApiKey";
import { newProfile, toDraft } from "../state/settingsForm";
import { ConnectionCheck } from "./ConnectionCheck";
import { Modal } from "./Modal";
import { Field, providerDraft } from "./ProfileEditor";

interface Choice {
  value: "openai" | "anthropic" | "compatible";
  kind: ProviderKind;
  label: string;
  hint: string;
  /** The profile's name unless the person gives another. */
  name: string;
  model: string;
  needsKey: boolean;
  needsUrl: boolean;
}

const CHOICES: Choice[] = [
  { value: "openai", kind: "openai-responses", label: "OpenAI", hint: "GPT models, with an OpenAI API key.", name: "OpenAI", model: "gpt-5.4", needsKey: true, needsUrl: false },
  { value: "anthropic", kind: "anthropic", label: "Anthropic", hint: "Claude models, with an Anthropic API key.", name: "Anthropic", model: "claude-sonnet-4-5", needsKey: true, needsUrl: false },
  {
    value: "compatible",
    kind: "openai-chat",
    label: "A compatible server",
    hint: "Ollama, vLLM, LM Studio, OpenRouter: anything that speaks OpenAI's Chat Completions.",
    name: "Local server",
    model: "",
    needsKey: false,
    needsUrl: true,
  },
];

interface ConnectProviderDialogProps {
  settings: Settings;
  /** Saves the settings with the new profile active and its key: one Save. */
  onSave: (settings: Settings, apiKeys: SetApiKey[]) => Promise<void>;
  onClose: () => void;
}

/**
 * "Connect a provider": pick OpenAI, Anthropic or a compatible server, paste a key, test the
 * connection (which also fills the model list from the server), save. The new profile becomes
 * the active one; everything else in Settings stays as it was.
 */
export function ConnectProviderDialog({ settings, onSave, onClose }: ConnectProviderDialogProps) {
  const groupName = useId();
  const [choice, setChoice] = useState<Choice>(CHOICES[0] as Choice);
  const [name, setName] = useState(choice.name);
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState(choice.model);
  const [models, setModels] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // Uncontrolled, like Settings' key field: the typed key never becomes a DOM attribute.
  const key = useRef<HTMLInputElement>(null);
  const draft = toDraft(settings);
  const profile = { ...newProfile(draft.profiles), kind: choice.kind, label: name, base_url: baseUrl, model };

  const pick = (next: Choice) => {
    if (name === choice.name) setName(next.name);
    setChoice(next);
    setModel(next.model);
    setModels([]);
    setProblem(null);
  };

  const save = async () => {
    if (saving) return;
    const typed = key.current?.value.trim() ?? "";
    const label = name.trim();
    const problems = [
      !label && "Give the profile a name.",
      settings.profiles.some((p) => p.label.trim() === label) && "Another profile has this name.",
      choice.needsUrl && !/^https?:\/\/\S+$/.test(baseUrl.trim()) && "Enter the server's base URL, e.g. http://127.0.0.1:11434/v1.",
      !model.trim() && "Enter a model, or test the connection to list the server's.",
      choice.needsKey && !typed && "Paste your API key.",
    ].filter((p): p is string => Boolean(p));
    if (problems.length) {
      setProblem(problems.join(" "));
      return;
    }
    const next: Settings = {
      ...settings,
      active_profile: profile.id,
      profiles: [
        ...settings.profiles,
        {
          id: profile.id,
          kind: choice.kind,
          label,
          model: model.trim(),
          has_key: false,
          compact_threshold: 8000,
          ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
        },
      ],
    };
    setSaving(true);
    try {
      await onSave(next, typed ? [{ profile_id: profile.id, key: typed }] : []);
      onClose();
    } catch (error) {
      setProblem(toCommandFailure(error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title="Connect a provider"
      wide
      className="connect-dialog"
      onClose={onClose}
      footer={
        <>
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button primary" aria-disabled={saving} onClick={() => void save()}>
            {saving ? "Saving…" : "Save and use"}
          </button>
        </>
      }
    >
      <div className="connect">
        <fieldset className="connect-choices">
          <legend>Provider</legend>
          {CHOICES.map((option) => (
            <label key={option.value} className={`connect-choice${option.value === choice.value ? " selected" : ""}`}>
              <input type="radio" name={groupName} value={option.value} checked={option.value === choice.value} onChange={() => pick(option)} />
              <span>
                <strong>{option.label}</strong>
                <span className="muted">{option.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div className="profile-grid">
          <Field id="connect-name" label="Name">
            <input id="connect-name" value={name} onChange={(event) => setName(event.target.value)} />
          </Field>
          {choice.needsUrl && (
            <Field id="connect-base-url" label="Base URL" hint="Where the server answers, with its version segment.">
              <input
                id="connect-base-url"
                value={baseUrl}
                placeholder="http://127.0.0.1:11434/v1"
                aria-describedby="connect-base-url-hint"
                onChange={(event) => setBaseUrl(event.target.value)}
              />
            </Field>
          )}
          <Field id="connect-key" label={choice.needsKey ? "API key" : "API key (if the server needs one)"} hint="Stored in the system keychain when you save, never shown again.">
            <input id="connect-key" ref={key} type="password" autoComplete="off" defaultValue="" placeholder="sk-…" aria-describedby="connect-key-hint" />
          </Field>
          <Field id="connect-model" label="Model" hint={models.length ? `${models.length} models on this server; type to pick one.` : "Test the connection to list the server's models."}>
            <input id="connect-model" value={model} list="connect-model-options" aria-describedby="connect-model-hint" onChange={(event) => setModel(event.target.value)} />
          </Field>
          {models.length > 0 && (
            <datalist id="connect-model-options">
              {models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          )}
        </div>
        <ConnectionCheck
          draft={() => providerDraft({ ...profile, model: model.trim() || (models[0] ?? "") }, key.current?.value.trim() || undefined)}
          onModels={(listed) => {
            setModels(listed);
            if (!model.trim() && listed[0]) setModel(listed[0]);
          }}
        />
      </div>
    </Modal>
  );
}
