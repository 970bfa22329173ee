// A small W3C WebDriver client over plain HTTP, for the engine tests: Playwright drives only its own
// browser builds, and stock Firefox ESR (geckodriver) and WebKitGTK (WebKitWebDriver) speak WebDriver.
// Only the commands the tests use; every request goes to the driver on loopback. Not a test file.
//
// `startDriver` spawns the driver on a free loopback port and waits for `/status`; `Session` wraps one
// browser session (`newSession`), whose windows the tests switch between with `use(handle)`.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { sleep } from "../support/server.mjs";

/** The key under which WebDriver returns a web element reference (W3C). */
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** A free TCP port on loopback (the OS picks one; the driver binds it right after). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `binary` with `args` plus `--port=N` (a free loopback port; both drivers take that form) and
 * waits until `GET /status` answers. Resolves with `{ url, output, stop() }`; `stop` SIGTERMs the
 * driver (the child spawned here, by its PID) and waits for it to exit. `output` keeps what the driver
 * printed, for failure messages.
 */
export async function startDriver(binary, args = []) {
  const port = await freePort();
  const child = spawn(binary, [...args, `--port=${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  const keep = (chunk) => {
    output.push(String(chunk));
    if (output.length > 400) output.shift();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${binary} exited at start: ${output.join("")}`);
    try {
      const response = await fetch(`${url}/status`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`${binary} did not answer /status within 20 s: ${output.join("")}`);
    }
    await sleep(100);
  }
  return {
    url,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(5000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    },
  };
}

/** One WebDriver command; resolves with its `value`, rejects with the driver's error and message. */
async function command(driverUrl, method, path, body) {
  const response = await fetch(`${driverUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path}: HTTP ${response.status}, not JSON: ${text.slice(0, 300)}`);
  }
  if (!response.ok) {
    const { error, message } = json.value ?? {};
    throw new Error(`${method} ${path}: ${error ?? response.status}: ${message ?? text.slice(0, 300)}`);
  }
  return json.value;
}

/** Opens a session with `alwaysMatch` capabilities on the driver at `driverUrl`. */
export async function newSession(driverUrl, alwaysMatch) {
  const value = await command(driverUrl, "POST", "/session", { capabilities: { alwaysMatch } });
  return new Session(driverUrl, value.sessionId, value.capabilities);
}

/** A web element reference as the driver wants it back. */
export const elementRef = (ref) => ({ [ELEMENT]: ref[ELEMENT] });

/** One browser session: navigation, scripts, windows, and real clicks and key presses on elements. */
export class Session {
  constructor(driverUrl, id, capabilities) {
    this.driverUrl = driverUrl;
    this.id = id;
    this.capabilities = capabilities;
  }

  #do(method, path, body) {
    return command(this.driverUrl, method, `/session/${this.id}${path}`, body);
  }

  /** `browserName browserVersion` as the driver reports them. */
  get browser() {
    return `${this.capabilities.browserName} ${this.capabilities.browserVersion}`;
  }

  goto(url) {
    return this.#do("POST", "/url", { url });
  }

  refresh() {
    return this.#do("POST", "/refresh", {});
  }

  /**
   * Runs `script` (a function body; `arguments` are `args`) in the current window and resolves with
   * what it returns; a returned promise is awaited by the driver (W3C Execute Script).
   */
  run(script, ...args) {
    return this.#do("POST", "/execute/sync", { script, args });
  }

  /** Sets the script timeout (ms) for `run`. */
  scriptTimeout(ms) {
    return this.#do("POST", "/timeouts", { script: ms });
  }

  /** The handle of the current window. */
  handle() {
    return this.#do("GET", "/window");
  }

  /** Opens a new top-level window (its own visible window, not a background tab); its handle. */
  async newWindow() {
    const value = await this.#do("POST", "/window/new", { type: "window" });
    return value.handle;
  }

  /** Makes `handle` the window later commands go to. */
  use(handle) {
    return this.#do("POST", "/window", { handle });
  }

  /** Closes the current window; the handles left. */
  closeWindow() {
    return this.#do("DELETE", "/window");
  }

  /**
   * A real mouse click at the centre of the element `ref` through the Actions API (pointer move, down,
   * up): what a user's click does, without Element Click's check that the element itself is hit, which
   * WebKitWebDriver reports as "intercepted" for the inputs of the task card (though the point it would
   * click is the input itself). Scrolled into view first, as a user
   * would, since pointer actions do not scroll.
   */
  async pointerClick(ref) {
    await this.run("arguments[0].scrollIntoView({ block: 'center', inline: 'center' });", elementRef(ref));
    const actions = [
      { type: "pointerMove", duration: 0, origin: elementRef(ref), x: 0, y: 0 },
      { type: "pointerDown", button: 0 },
      { type: "pointerUp", button: 0 },
    ];
    return this.#do("POST", "/actions", { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions }] });
  }

  /** Types `text` into the element `ref` (focused first), as key presses. */
  type(ref, text) {
    return this.#do("POST", `/element/${ref[ELEMENT]}/value`, { text });
  }

  /** Empties the editable element `ref`. */
  clear(ref) {
    return this.#do("POST", `/element/${ref[ELEMENT]}/clear`, {});
  }

  /** A vendor command of the driver (e.g. geckodriver's `/moz/context`). */
  vendor(method, path, body) {
    return this.#do(method, path, body);
  }

  /** Ends the session; the driver closes the browser. */
  end() {
    return command(this.driverUrl, "DELETE", `/session/${this.id}`);
  }
}
