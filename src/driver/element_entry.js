// The package entry `pkg/element.js` imports when it runs on the JS driver: TaskClient, and the
// element's questions to the Rust model (its card, list rows, form checks and words) as the shipped
// entry exports them. Values cross as JSON text, so numbers keep their digits.
import { ELEMENT, TaskClient } from "./task_client.js";
import { elementAnswer as answer, elementElapsed, elementWords as words } from "./door.js";

export { default, TaskClient } from "./task_client.js";
export { elementElapsed };

/** Every word for `lang`, with `layers` (`[shared, own]` overrides) over the shipped ones. */
export const elementWords = (lang, layers) => JSON.parse(words(String(lang), JSON.stringify(layers ?? null)));

/** `{ answer }` (JSON text), `{ errors }` or null for what the user entered in a form of `schema`. */
export const elementAnswer = (schema, entered, w) => JSON.parse(answer(String(schema), JSON.stringify(entered ?? null), JSON.stringify(w ?? null)));

/** The card of task `id` of `client` (else of `snapshot`), or null. */
export const elementCard = (client, id, snapshot, w) => (client instanceof TaskClient ? client[ELEMENT]("card", { id, snapshot, words: w }) : null);

/** The rows of `client`'s list. */
export const elementList = (client, w) => (client instanceof TaskClient ? client[ELEMENT]("list", { words: w }) : []);

/** Sends a form's `responses` (JSON text) for task `id`. */
export const elementRespond = (client, id, responses) => client[ELEMENT]("respond", { id, answersText: String(responses) });
