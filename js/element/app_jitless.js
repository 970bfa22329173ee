// @ts-check
// Imported by app.js before the official SDK: the bridge validates with zod, and zod's schemas probe
// `new Function` when they are built unless `jitless` is set first. A host's strict CSP (no
// 'unsafe-eval') reports that probe as a violation even though zod catches the refusal; jitless, zod
// parses without generated code, which is what it falls back to under such a CSP anyway.
import { config } from "zod/v4/core";

config({ jitless: true });
