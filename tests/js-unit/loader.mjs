// @ts-check
// A module-resolution hook (registered by support.mjs with `module.register`) that loads the driver
// from the source tree: its imports of the files the xtask build puts beside it in pkg/ go to where
// they are in src/, and the wasm glue to the scripted door. The one table below is the whole mapping:
// once the glue is a `#door` subpath import with a `fake-door` condition, this file goes and the
// tests run with `node --conditions=fake-door`.

const ROOT = new URL("../../", import.meta.url);
const DRIVER = new URL("src/driver/", ROOT).href;

/** What the driver's own relative imports are in the source tree, from the repository root. */
const SOURCES = {
  "./door.js": "tests/js/fake_door.mjs",
  "./door_full.js": "tests/js/fake_door.mjs",
  "./http.js": "src/transport/http.js",
  "./idb.js": "src/store/idb.js",
  "./browser.js": "src/host/browser.js",
};

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: { parentURL?: string }) => Promise<{ url: string, format?: string | null }>} next
 */
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? "";
  if (parent.startsWith(DRIVER) && Object.hasOwn(SOURCES, specifier)) {
    const url = new URL(SOURCES[/** @type {keyof typeof SOURCES} */ (specifier)], ROOT).href;
    return { url, format: "module", shortCircuit: true };
  }
  const resolved = await next(specifier, context);
  // The source tree has no package.json saying its .js files are modules: say so here, rather than
  // have Node parse each twice and warn.
  if (resolved.url.startsWith(new URL("src/", ROOT).href) && resolved.url.endsWith(".js")) {
    return { ...resolved, format: "module" };
  }
  return resolved;
}
