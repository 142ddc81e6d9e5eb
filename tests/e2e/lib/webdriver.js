// A small W3C WebDriver client over fetch, for tauri-driver (which proxies to
// WebKitWebDriver). tauri-driver now and then drops one command's connection
// ("connection reset", "socket hang up"); such a command is sent again, up to
// RETRIES times. Only transport failures are retried: a WebDriver error
// response (no such element, script error...) fails at once.

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
const RETRIES = 4;

export class WebDriverError extends Error {
  constructor(method, path, status, value) {
    super(`${method} ${path} -> ${status} ${value?.error ?? ""}: ${value?.message ?? JSON.stringify(value)}`);
    this.status = status;
    this.error = value?.error;
  }
}

function isTransportError(error) {
  const codes = ["ECONNRESET", "ECONNREFUSED", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ETIMEDOUT"];
  for (let e = error; e; e = e.cause) {
    if (codes.includes(e.code)) return true;
    if (/socket hang up|other side closed|fetch failed|terminated/i.test(e.message ?? "")) return true;
  }
  return false;
}

export class WebDriver {
  constructor(url) {
    this.url = url.replace(/\/$/, "");
    this.sessionId = null;
    this.retried = 0;
  }

  async request(method, path, body) {
    let lastError;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      try {
        const response = await fetch(this.url + path, {
          method,
          headers: body === undefined ? undefined : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await response.text();
        const json = text ? JSON.parse(text) : {};
        if (!response.ok) throw new WebDriverError(method, path, response.status, json.value);
        return json.value;
      } catch (error) {
        if (!isTransportError(error) || attempt === RETRIES) throw error;
        lastError = error;
        this.retried++;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    throw lastError;
  }

  s(path = "") {
    if (!this.sessionId) throw new Error("no WebDriver session");
    return `/session/${this.sessionId}${path}`;
  }

  async newSession(application) {
    const value = await this.request("POST", "/session", {
      capabilities: { alwaysMatch: { "tauri:options": { application } } },
    });
    this.sessionId = value.sessionId;
    return value;
  }

  async deleteSession() {
    if (!this.sessionId) return;
    const id = this.sessionId;
    this.sessionId = null;
    await this.request("DELETE", `/session/${id}`);
  }

  /** Runs `script` (a function body; `arguments` holds `args`) in the page. */
  execute(script, ...args) {
    return this.request("POST", this.s("/execute/sync"), { script, args });
  }

  executeAsync(script, ...args) {
    return this.request("POST", this.s("/execute/async"), { script, args });
  }

  async findAll(css) {
    return this.request("POST", this.s("/elements"), { using: "css selector", value: css });
  }

  click(element) {
    return this.request("POST", this.s(`/element/${element[ELEMENT]}/click`), {});
  }

  sendKeys(element, text) {
    return this.request("POST", this.s(`/element/${element[ELEMENT]}/value`), { text });
  }

  clear(element) {
    return this.request("POST", this.s(`/element/${element[ELEMENT]}/clear`), {});
  }

  text(element) {
    return this.request("GET", this.s(`/element/${element[ELEMENT]}/text`));
  }

  source() {
    return this.request("GET", this.s("/source"));
  }

  /** W3C input actions (`sources`: the action sequences), then their release. */
  async performActions(sources) {
    await this.request("POST", this.s("/actions"), { actions: sources });
    return this.request("DELETE", this.s("/actions"));
  }

  setWindowRect(rect) {
    return this.request("POST", this.s("/window/rect"), rect);
  }

  getWindowRect() {
    return this.request("GET", this.s("/window/rect"));
  }
}

export const Keys = { BACKSPACE: "\uE003", CONTROL: "\uE009", NULL: "\uE000", ENTER: "\uE007", ESCAPE: "\uE00C", TAB: "\uE004", SHIFT: "\uE008", ARROW_LEFT: "\uE012", ARROW_RIGHT: "\uE014", ARROW_DOWN: "\uE015", HOME: "\uE011", END: "\uE010" };
export { ELEMENT };
