// `?without=states,locks`: removes the named Web APIs before the page's module scripts run, so the
// engine tests (tests/engines/fallbacks.test.mjs) can run the element's and the client's fallback paths
// in an engine that has the API, as an engine that lacks it would: `states` is
// `ElementInternals.states` (CustomStateSet: Safari before 17.4, Firefox before 126), `locks` is
// `navigator.locks` (Web Locks: Safari before 15.4, and pages that are not a secure context). Without
// the parameter this does nothing. A classic script from a file: the strict CSP allows no inline script.
(() => {
  const without = new Set((new URLSearchParams(location.search).get("without") ?? "").split(",").filter(Boolean));
  const removed = [];
  if (without.has("states") && typeof ElementInternals === "function" && "states" in ElementInternals.prototype) {
    delete ElementInternals.prototype.states;
    removed.push("states");
  }
  if (without.has("locks") && "locks" in Navigator.prototype) {
    delete Navigator.prototype.locks;
    removed.push("locks");
  }
  window.__removedApis = removed;
})();
