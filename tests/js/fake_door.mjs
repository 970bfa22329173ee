// @ts-check
// A scripted door: the surface of the wasm glue the driver imports (`init`, `initSync`,
// `protocolVersion`, `tasksExtensionId`, `ClientDoor` with `version`, `handle` and `free`), playing one transcript
// of tests/transcripts/. Each `handle` call must carry the transcript's next event (same `now`, `x`,
// event as JSON values, body bytes); it returns that step's recorded effects. The first mismatch is
// kept as `script.failure` for the test to throw, and the door answers it with no effects: thrown into
// the driver, it would surface as an unhandled rejection of whichever promise fed the event.
import { isDeepStrictEqual } from "node:util";

/**
 * One `handle(now, x, event, body)` and what the door answered.
 * @typedef {{ now: number, x: number, event: Record<string, unknown> & { e: string }, body: string, effects: Array<Record<string, unknown>> }} Step
 */
/**
 * A transcript file.
 * @typedef {{ about: string, version: number, options: unknown, seed: number, steps: Step[] }} Transcript
 */

const UTF8 = new TextDecoder();

/** A transcript being played: where it is, and the first way the driver strayed from it. */
export class Script {
  /**
   * @param {string} name
   * @param {Transcript} transcript
   */
  constructor(name, transcript) {
    this.name = name;
    this.transcript = transcript;
    /** The next step's index. */
    this.at = 0;
    /** @type {Error | undefined} */
    this.failure = undefined;
    /**
     * The step at which `handle` traps, as wasm does when Rust panics or memory cannot grow (a
     * `WebAssembly.RuntimeError`); the door throws on every later call, as wasm-bindgen's does.
     * @type {number | undefined}
     */
    this.trapAt = undefined;
    /**
     * Called after every step the door answered (the scripted fetch releases answers from it).
     * @type {() => void}
     */
    this.onStep = () => {};
  }

  /** The next step, or undefined at the end. */
  next() {
    return this.transcript.steps[this.at];
  }

  /**
   * Records the first failure.
   * @param {string} message
   */
  fail(message) {
    this.failure ??= new Error(`${this.name}: ${message}`);
  }

  /** Throws unless every step was played and nothing strayed. */
  finished() {
    if (this.failure) throw this.failure;
    const next = this.next();
    if (next !== undefined) {
      throw new Error(
        `${this.name}: the driver stopped before step ${this.at} of ${this.transcript.steps.length}: ${JSON.stringify(next.event)}`,
      );
    }
  }
}

/** @type {Script | undefined} */
let playing;

/**
 * The script the next `new ClientDoor(…)` plays.
 * @param {Script} script
 */
export function play(script) {
  playing = script;
}

export default async function init() {}
export function initSync() {}
export function protocolVersion() {
  return "2026-07-28";
}
export function tasksExtensionId() {
  return "io.modelcontextprotocol/tasks";
}
// The element's functions, which the driver re-exports for element.js; over the client's module, which
// has no card model, they throw.
const noCardModel = () => {
  throw new TypeError("no card model in this module");
};
export const elementWords = noCardModel;
export const elementAnswer = noCardModel;
export const elementElapsed = noCardModel;

export class ClientDoor {
  /**
   * The door protocol's version the transcript was recorded with.
   * @returns {number}
   */
  static version() {
    if (playing === undefined) throw new Error("no transcript to play: call play(script) first");
    return playing.transcript.version;
  }

  /**
   * @param {string} options
   * @param {number} seed
   */
  constructor(options, seed) {
    if (playing === undefined) throw new Error("no transcript to play: call play(script) first");
    /** @type {Script} */
    this.script = playing;
    const { transcript } = this.script;
    if (!isDeepStrictEqual(JSON.parse(options), transcript.options)) {
      this.script.fail(`the door was opened with ${options}; the transcript has ${JSON.stringify(transcript.options)}`);
    }
    /** Whether this door trapped. */
    this.trapped = false;
    if (seed !== transcript.seed)
      this.script.fail(`the door was opened with seed ${seed}; the transcript has ${transcript.seed}`);
  }

  /**
   * @param {number} now
   * @param {number} x
   * @param {string} event
   * @param {Uint8Array} body
   * @returns {string}
   */
  handle(now, x, event, body) {
    const script = this.script;
    if (this.trapped || script.at === script.trapAt) {
      this.trapped = true;
      throw new WebAssembly.RuntimeError("unreachable");
    }
    const sent = { now, x, event: JSON.parse(event), body: UTF8.decode(body) };
    const step = script.next();
    if (script.failure) return "[]";
    if (step === undefined) {
      script.fail(`the driver sent ${event} after the transcript's last step`);
      return "[]";
    }
    const want = { now: step.now, x: step.x, event: step.event, body: step.body };
    if (!isDeepStrictEqual(sent, want)) {
      const fields = /** @type {Array<keyof typeof want>} */ (["now", "x", "event", "body"]).filter(
        (field) => !isDeepStrictEqual(sent[field], want[field]),
      );
      script.fail(
        `step ${script.at}: the driver sent a different ${fields.join(", ")}\n` +
          `  transcript: ${JSON.stringify(want)}\n  driver:     ${JSON.stringify(sent)}`,
      );
      return "[]";
    }
    script.at += 1;
    script.onStep();
    return JSON.stringify(step.effects);
  }

  free() {}
}
