import type { EventEnvelope, ResponseItem } from "../api/types";
import type { DebugEvent } from "../bindings/DebugEvent";
import type { MainlineEvent } from "../bindings/MainlineEvent";

export const SESSION = "0193a1b2-c3d4-7e5f-8a9b-00000000aaaa";
export const TURN = "0193a1b2-c3d4-7e5f-8a9b-00000000bbbb";
export const ROUND = "0193a1b2-c3d4-7e5f-8a9b-00000000cccc";

/** Builds envelopes with increasing sequence numbers. */
export function eventStream() {
  let seq = 0;
  return {
    mainline: (event: MainlineEvent): EventEnvelope => ({
      v: 1,
      seq: seq++,
      session_id: SESSION,
      event: { family: "mainline", event },
    }),
    debug: (event: DebugEvent): EventEnvelope => ({
      v: 1,
      seq: seq++,
      session_id: SESSION,
      event: { family: "debug", event },
    }),
  };
}

export function userItem(content: string, id = "item-user"): ResponseItem {
  return { type: "message", id, role: "user", content };
}

export function assistantItem(content: string, id = "item-assistant"): ResponseItem {
  return { type: "message", id, role: "assistant", content };
}
