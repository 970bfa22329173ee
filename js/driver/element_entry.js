// @ts-check
// The package entry `pkg/element.js` imports when it runs on the JS driver: TaskClient, and the
// element's questions to the Rust model (its card, list rows, form checks and words) as the shipped
// entry exports them. Values cross as JSON text, so numbers keep their digits.
import { ELEMENT, TaskClient } from "./task_client.js";
import { elementAnswer as answer, elementElapsed, elementWords as words } from "#door";

export { default, TaskClient } from "./task_client.js";
export { elementElapsed };

/** @import { Card, DoneValues } from "../../types/door-protocol.js" */

/**
 * Every word for `lang`, with `layers` (`[shared, own]` overrides) over the shipped ones.
 * @param {string} lang
 * @param {unknown} layers
 * @returns {Record<string, string>}
 */
export const elementWords = (lang, layers) => JSON.parse(words(String(lang), JSON.stringify(layers ?? null)));

/**
 * `{ answer }` (JSON text), `{ errors }` or null for what the user entered in a form of `schema`.
 * @param {string} schema
 * @param {unknown} entered
 * @param {unknown} w
 * @returns {{ answer: string, errors?: undefined } | { errors: Record<string, string>, answer?: undefined } | null}
 */
export const elementAnswer = (schema, entered, w) =>
  JSON.parse(answer(String(schema), JSON.stringify(entered ?? null), JSON.stringify(w ?? null)));

/**
 * The card of task `id` of `client` (else of `snapshot`), or null; without its snapshot when that is
 * the one of digest `drawn`.
 * @param {unknown} client
 * @param {string} id
 * @param {unknown} snapshot
 * @param {string | null} drawn
 * @param {unknown} w
 * @returns {Card | null}
 */
export const elementCard = (client, id, snapshot, drawn, w) =>
  client instanceof TaskClient ? client[ELEMENT]("card", { id, snapshot, drawn, words: w }) : null;

/**
 * The rows of `client`'s list.
 * @param {unknown} client
 * @param {unknown} w
 * @returns {DoneValues["list"]}
 */
export const elementList = (client, w) => (client instanceof TaskClient ? client[ELEMENT]("list", { words: w }) : []);

/**
 * Sends a form's `responses` (JSON text) for task `id`.
 * @param {unknown} client
 * @param {string} id
 * @param {string} responses
 * @returns {Promise<unknown>}
 */
export const elementRespond = (client, id, responses) =>
  /** @type {TaskClient} */ (client)[ELEMENT]("respond", { id, answersText: String(responses) });
