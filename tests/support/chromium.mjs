// The Chromium every browser test and bench figure launches: Debian's (or `$CHROMIUM`), headless, with
// the flags a container needs (no sandbox, no GPU, /tmp instead of /dev/shm) and without the
// background traffic that would reach past loopback.
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
