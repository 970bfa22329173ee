// The half of src/host/js_json.rs that is faster in JS: a value Rust wrote, with `null` where each
// part the host already holds goes, and those parts set back in by path, in one call.

/**
 * Parses `text`, `[value, paths]`, and sets `parts[i]` at `paths[i]` (keys and indices from the root)
 * in `value`. Every step but the last exists, and the last holds the `null` Rust wrote, each an own
 * property JSON.parse made (so a `__proto__` key is a plain member here too).
 */
export function withParts(text, parts) {
  const [value, paths] = JSON.parse(text);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    let at = value;
    for (let s = 0; s < path.length - 1; s++) at = at[path[s]];
    at[path[path.length - 1]] = parts[i];
  }
  return value;
}
