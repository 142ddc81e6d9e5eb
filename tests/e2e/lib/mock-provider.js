// A local OpenAI Responses API (`POST /v1/responses`) for the end-to-end
// tests, driven step by step by the test: every request the app makes waits,
// unanswered, until the test takes it with `nextRequest()` and answers it
// (text deltas, a function call, usage figures, a non-streaming summary), or
// opens a stream it feeds and holds open for as long as it likes. Every
// request body is recorded so tests can assert what the model was sent.
//
// The event shapes follow the recorded captures in
// ../shared/fixtures/wire/openai-responses beside the clone (response.created ...
// response.output_text.delta ... response.output_item.done ...
// response.completed with usage).

import http from "node:http";
import { randomBytes } from "node:crypto";

const id = (prefix) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Usage as the Responses API reports it. */
export function usage({ input = 0, output = 0, cached = 0, reasoning = 0 } = {}) {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

function responseObject(responseId, model, status, output, usageFigures) {
  return {
    id: responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    store: false,
    usage: usageFigures ?? null,
  };
}

function messageItem(itemId, text, status = "completed") {
  return {
    id: itemId,
    type: "message",
    status,
    role: "assistant",
    content: status === "completed" ? [{ type: "output_text", annotations: [], logprobs: [], text }] : [],
  };
}

/** A stream the test feeds: deltas now, completion when it says so. */
export class StreamController {
  constructor(request) {
    this.request = request;
    this.res = request.res;
    this.sequence = 0;
    this.responseId = id("resp");
    this.itemId = id("msg");
    this.text = "";
    this.closed = new Promise((resolve) => this.res.on("close", resolve));
    this.res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const model = request.body.model;
    this.send("response.created", { response: responseObject(this.responseId, model, "in_progress", [], null) });
    this.send("response.in_progress", { response: responseObject(this.responseId, model, "in_progress", [], null) });
  }

  send(type, fields) {
    const data = { type, sequence_number: this.sequence++, ...fields };
    this.res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** The message's output index: after the reasoning item, when there is one. */
  get messageIndex() {
    return this.reasoningItem ? 1 : 0;
  }

  /**
   * A reasoning item before the answer, as `reasoning.summary: "auto"` streams it: its summary
   * text in `chunks` deltas, then the whole item with its `encrypted_content` (what a stateless
   * request sends back).
   */
  reasoning(summary, encrypted, chunks = 3) {
    if (this.messageStarted || this.calls?.length) throw new Error("the reasoning item comes first");
    const itemId = id("rs");
    const at = { item_id: itemId, output_index: 0, summary_index: 0 };
    this.send("response.output_item.added", { output_index: 0, item: { id: itemId, type: "reasoning", summary: [] } });
    this.send("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
    const size = Math.max(1, Math.ceil(summary.length / chunks));
    for (let from = 0; from < summary.length; from += size) {
      this.send("response.reasoning_summary_text.delta", { ...at, delta: summary.slice(from, from + size) });
    }
    this.send("response.reasoning_summary_text.done", { ...at, text: summary });
    this.send("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: summary } });
    const item = { id: itemId, type: "reasoning", summary: [{ type: "summary_text", text: summary }], encrypted_content: encrypted };
    this.send("response.output_item.done", { output_index: 0, item });
    this.reasoningItem = item;
  }

  startMessage() {
    if (this.messageStarted) return;
    this.messageStarted = true;
    const index = this.messageIndex;
    this.send("response.output_item.added", { output_index: index, item: messageItem(this.itemId, "", "in_progress") });
    this.send("response.content_part.added", {
      item_id: this.itemId,
      output_index: index,
      content_index: 0,
      part: { type: "output_text", annotations: [], logprobs: [], text: "" },
    });
  }

  delta(text) {
    this.startMessage();
    this.text += text;
    this.send("response.output_text.delta", {
      item_id: this.itemId,
      output_index: this.messageIndex,
      content_index: 0,
      delta: text,
      logprobs: [],
    });
  }

  /** Ends the message and the response with `usage`, and closes the stream. */
  complete(usageFigures = usage({ input: 100, output: 10 })) {
    const output = this.reasoningItem ? [this.reasoningItem] : [];
    if (this.messageStarted) {
      const index = this.messageIndex;
      const part = { type: "output_text", annotations: [], logprobs: [], text: this.text };
      this.send("response.output_text.done", { item_id: this.itemId, output_index: index, content_index: 0, text: this.text, logprobs: [] });
      this.send("response.content_part.done", { item_id: this.itemId, output_index: index, content_index: 0, part });
      const item = messageItem(this.itemId, this.text);
      this.send("response.output_item.done", { output_index: index, item });
      output.push(item);
    }
    for (const call of this.calls ?? []) output.push(call);
    this.send("response.completed", {
      response: responseObject(this.responseId, this.request.body.model, "completed", output, usageFigures),
    });
    this.res.end();
    this.request.answered = true;
  }

  /** A function call item, its arguments in two deltas. */
  functionCall(name, args) {
    const index = this.messageIndex + (this.messageStarted ? 1 : 0) + (this.calls?.length ?? 0);
    const itemId = id("fc");
    const callId = `call_${randomBytes(8).toString("hex")}`;
    const argumentsText = JSON.stringify(args);
    const half = Math.floor(argumentsText.length / 2);
    this.send("response.output_item.added", {
      output_index: index,
      item: { id: itemId, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name },
    });
    for (const delta of [argumentsText.slice(0, half), argumentsText.slice(half)]) {
      this.send("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta });
    }
    this.send("response.function_call_arguments.done", { item_id: itemId, output_index: index, arguments: argumentsText });
    const item = { id: itemId, type: "function_call", status: "completed", arguments: argumentsText, call_id: callId, name };
    this.send("response.output_item.done", { output_index: index, item });
    (this.calls ??= []).push(item);
    return callId;
  }
}

/** One request from the app, waiting for the test's answer. */
export class MockRequest {
  constructor(req, res, body, number) {
    this.req = req;
    this.res = res;
    this.body = body;
    this.number = number;
    this.headers = req.headers;
    this.answered = false;
  }

  /**
   * Whether this is a compaction's summary request: not streamed, and either
   * without tools (base's, or layered's over the originals) or the session's
   * own context with the compaction instruction appended (layered's first try).
   */
  get isSummary() {
    if (this.body.stream) return false;
    return !(this.body.tools?.length > 0) || this.isInContextSummary;
  }

  /** Whether this is layered's summary asked for in the session's own context. */
  get isInContextSummary() {
    const last = (this.body.input ?? []).at(-1);
    const text = JSON.stringify(last?.content ?? "");
    return !this.body.stream && text.includes("[Strata: compaction]");
  }

  /** Every text of the request's input, joined: what the model was sent. */
  get inputText() {
    return JSON.stringify(this.body.input ?? []) + "\n" + (this.body.instructions ?? "");
  }

  /** Input messages as `{ role, text }`, other items as `{ type, ... }`. */
  get inputItems() {
    return (this.body.input ?? []).map((item) => {
      if (item.type === "message" || item.role) {
        const content = Array.isArray(item.content)
          ? item.content.map((part) => part.text ?? "").join("")
          : String(item.content ?? "");
        return { role: item.role, text: content };
      }
      return item;
    });
  }

  /** Opens an SSE stream the test feeds (deltas, calls, completion). */
  openStream() {
    if (!this.body.stream) throw new Error(`request ${this.number} is not streamed`);
    return new StreamController(this);
  }

  /** A whole text answer: streamed in `chunks`, or one JSON body. */
  respondText(text, usageFigures = usage({ input: 100, output: 10 }), chunks = 3) {
    if (!this.body.stream) {
      const body = responseObject(id("resp"), this.body.model, "completed", [messageItem(id("msg"), text)], usageFigures);
      this.res.writeHead(200, { "content-type": "application/json" });
      this.res.end(JSON.stringify(body));
      this.answered = true;
      return;
    }
    const stream = this.openStream();
    const size = Math.max(1, Math.ceil(text.length / chunks));
    for (let at = 0; at < text.length; at += size) stream.delta(text.slice(at, at + size));
    stream.complete(usageFigures);
  }

  /** A round that asks for one tool call; returns its call id. */
  respondFunctionCall(name, args, usageFigures = usage({ input: 100, output: 20 })) {
    const stream = this.openStream();
    const callId = stream.functionCall(name, args);
    stream.complete(usageFigures);
    return callId;
  }

  /** An HTTP error with an OpenAI-shaped body. */
  respondError(status, message, type = "server_error") {
    this.res.writeHead(status, { "content-type": "application/json" });
    this.res.end(JSON.stringify({ error: { message, type, code: null, param: null } }));
    this.answered = true;
  }
}

/** The models `GET /v1/models` lists. */
export const MOCK_MODELS = ["gpt-5.4-mini", "qwen3:8b"];

export class MockProvider {
  constructor({ apiKey } = {}) {
    this.apiKey = apiKey;
    this.requests = [];
    this.queue = [];
    this.waiters = [];
    this.sockets = new Set();
    // The Settings checks answered (`answerCheck`), as "GET /v1/models" lines.
    this.checks = [];
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = this.server.address().port;
    return this;
  }

  get baseUrl() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  onRequest(req, res) {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      if (this.answerCheck(req, res)) return;
      if (req.method !== "POST" || req.url !== "/v1/responses") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
        return;
      }
      if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }));
        return;
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        res.writeHead(400);
        res.end(String(error));
        return;
      }
      const request = new MockRequest(req, res, body, this.requests.length + 1);
      this.requests.push(request);
      const waiter = this.waiters.shift();
      if (waiter) waiter(request);
      else this.queue.push(request);
    });
  }

  /**
   * Settings' checks, answered at once: the model list (`GET /v1/models`) and the one-token
   * connection test of an OpenAI-compatible profile (`POST /v1/chat/completions`), each behind
   * the same key check as the Responses route. True when it answered.
   */
  answerCheck(req, res) {
    const listing = req.method === "GET" && req.url === "/v1/models";
    const testing = req.method === "POST" && req.url === "/v1/chat/completions";
    if (!listing && !testing) return false;
    this.checks.push(`${req.method} ${req.url}`);
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }));
      return true;
    }
    const body = listing
      ? { object: "list", data: MOCK_MODELS.map((model) => ({ id: model, object: "model", owned_by: "e2e" })) }
      : {
          id: id("chatcmpl"),
          object: "chat.completion",
          model: MOCK_MODELS[0],
          choices: [{ index: 0, message: { role: "assistant", content: "p" }, finish_reason: "length" }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
    return true;
  }

  /** The next request the app makes (already made, or still to come). */
  nextRequest({ timeout = 20_000, what = "a model request", signal } = {}) {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const give_up = (error) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== take);
        reject(error);
      };
      const timer = setTimeout(
        () => give_up(new Error(`mock provider: no request came within ${timeout} ms (waiting for ${what})`)),
        timeout,
      );
      const take = (request) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(request);
      };
      const onAbort = () => give_up(new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(take);
    });
  }

  /** Requests taken or queued but never answered. */
  unanswered() {
    return this.requests.filter((r) => !r.answered && !r.res.writableEnded && !r.res.destroyed);
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
