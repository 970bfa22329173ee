// The card host build's exports for element.js that the published pkg-template/mcp_tasks_web.d.ts
// leaves out (they are not host API): in pkg/, mcp_tasks_web.js is js/driver/element_entry.js bundled,
// so they are typed as that module declares them.
import type * as entry from "../js/driver/element_entry.js";

declare module "../pkg-template/mcp_tasks_web.js" {
  export const elementAnswer: typeof entry.elementAnswer;
  export const elementCard: typeof entry.elementCard;
  export const elementElapsed: typeof entry.elementElapsed;
  export const elementList: typeof entry.elementList;
  export const elementRespond: typeof entry.elementRespond;
  export const elementWords: typeof entry.elementWords;
}
