// The BroadcastChannel half of src/runtime/channel.rs.

/**
 * Opens the channel `name` and calls `onMessage(text)` with every message from other clients: JSON
 * text, or, for an object from a tab still running the previous version, that object as JSON (one
 * JSON cannot hold is dropped). Returns `{ post(text), close() }`; undefined where the runtime has no
 * BroadcastChannel.
 */
export function openChannel(name, onMessage) {
  let channel;
  try {
    channel = new BroadcastChannel(name);
  } catch {
    return undefined;
  }
  channel.onmessage = ({ data }) => {
    let text = data;
    try {
      if (typeof data !== "string") text = JSON.stringify(data) ?? "null";
    } catch {
      return;
    }
    onMessage(text);
  };
  return {
    post(text) {
      try {
        channel.postMessage(text);
      } catch {
        // Closed: the client is going away.
      }
    },
    close() {
      channel.onmessage = null;
      channel.close();
    },
  };
}
