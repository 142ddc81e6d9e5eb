import { useState } from "react";
import type { ProfileView, SessionListItem } from "../api/types";
import type { ProfileSet } from "../bindings/ProfileSet";
import { isSessionProfile, KIND_LABEL, sessionProviderName } from "../lib/profiles";
import { Modal } from "./Modal";

interface SwitchProfileDialogProps {
  session: SessionListItem;
  /** The session's recorded profile (its last `profile_set`), when it has one. */
  current?: ProfileSet | null;
  profiles: ProfileView[];
  onCancel: () => void;
  /** Called only once the person confirmed sending the history to the chosen profile. */
  onSwitch: (profileId: string) => void;
}

function endpoint(profile: ProfileView): string {
  return profile.kind === "demo" ? "the offline demo model on this computer" : (profile.base_url ?? "its default endpoint");
}

/**
 * Moves a session to another saved profile: pick one, then confirm, because from the next turn
 * on the whole history goes to that profile's endpoint. The switch is recorded in the session.
 */
export function SwitchProfileDialog({ session, current, profiles, onCancel, onSwitch }: SwitchProfileDialogProps) {
  const others = profiles.filter((profile) => !isSessionProfile(profile, session, current));
  const [chosen, setChosen] = useState<string>(others[0]?.id ?? "");
  const [confirming, setConfirming] = useState(false);
  const target = profiles.find((profile) => profile.id === chosen);
  // The session's provider by its profile's name, never the kind's slug.
  const currentName = `${sessionProviderName(profiles, session, current)} · ${session.model}`;

  if (confirming && target) {
    return (
      <Modal
        title="Send this session's history there?"
        onClose={onCancel}
        footer={
          <>
            <button type="button" className="button" onClick={onCancel} data-autofocus>
              Cancel
            </button>
            <button type="button" className="button primary" onClick={() => onSwitch(target.id)}>
              Switch and send history there
            </button>
          </>
        }
      >
        <div className="confirm-message">
          <p>
            From the next turn on, the whole conversation ({session.item_count} items so far) will be sent to{" "}
            <strong>{target.label}</strong> ({target.model}) at <code data-testid="switch-endpoint">{endpoint(target)}</code>,
            not to {currentName}.
          </p>
          <p className="muted">The switch is recorded in the session and shown in its transcript.</p>
        </div>
      </Modal>
    );
  }

  return (
    <Modal
      title="Switch profile"
      onClose={onCancel}
      footer={
        <>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button primary" disabled={!target} onClick={() => setConfirming(true)}>
            Continue
          </button>
        </>
      }
    >
      <p>
        This session talks to <strong>{currentName}</strong>. Choose the saved profile it
        should talk to from its next turn on.
      </p>
      {others.length === 0 ? (
        <p className="muted">There is no other profile. Add one in Settings first.</p>
      ) : (
        <fieldset className="profile-choices">
          <legend className="visually-hidden">Profiles</legend>
          {others.map((profile, index) => (
            <label key={profile.id} className="profile-choice">
              <input
                type="radio"
                name="switch-profile"
                value={profile.id}
                checked={chosen === profile.id}
                onChange={() => setChosen(profile.id)}
                data-autofocus={index === 0 ? true : undefined}
              />
              <span>
                <strong>{profile.label}</strong> <span className="muted">{KIND_LABEL[profile.kind]} · {profile.model}</span>
                {profile.kind !== "demo" && !profile.has_key && <span className="badge badge-warn">No key</span>}
                {profile.base_url && <span className="muted"> · {profile.base_url}</span>}
              </span>
            </label>
          ))}
        </fieldset>
      )}
    </Modal>
  );
}
